// Unit tests of locations.js and the engine diagnostics' ranges (node --test; no browser): the engine counts
// columns in code points, CodeMirror in UTF-16 units; a range covers the token the engine names.

import test from "node:test";
import assert from "node:assert/strict";
import { EditorState } from "@codemirror/state";
import { columnOffset, errorRange, textIndex } from "../src/locations.js";
import { serverDiagnostics } from "../src/yaml-assist.js";
import { typecheckDiagnostics } from "../src/field-locator.js";

const TEXT = "a: 1\nexpr: \"😀 + x )\"\nlast: 2\n";

test("columns are code points: a character outside the BMP counts once", () => {
  assert.equal(columnOffset("x😀y", 1), 0);
  assert.equal(columnOffset("x😀y", 3), 3);   // 'y' after the two-unit emoji
  assert.equal(columnOffset("ab", 9), 2);     // clamped to the line's end
});

test("an engine error becomes the range of its token, on its line", () => {
  const doc = EditorState.create({ doc: TEXT }).doc;
  // ")" is column 14 of line 2 in code points (the emoji is one), 15 in UTF-16 units.
  const range = errorRange(doc, { line: 2, column: 14, endLine: 2, endColumn: 15 });
  assert.equal(doc.sliceString(range.from, range.to), ")");
  const whole = errorRange(doc, { line: 3 });
  assert.equal(doc.sliceString(whole.from, whole.to), "last: 2");
});

test("errors about objects with no text get no marker", () => {
  const doc = EditorState.create({ doc: TEXT }).doc;
  const marked = serverDiagnostics(doc, [{ line: null, located: false, message: "no text", path: "spec" },
    { line: 2, column: 10, endLine: 2, endColumn: 11, message: "bad", severity: "error" }]);
  assert.equal(marked.length, 1);
  assert.equal(doc.sliceString(marked[0].from, marked[0].to), "+");
});

test("type-check diagnostics go to the document the engine named", () => {
  const report = { p: { diagnostics: [{ fieldRef: "spec.validations[0].expression", message: "m", severity: "warning",
    line: 1, column: 3, location: { source: "<text 1>", line: 2, column: 9, endLine: 2, endColumn: 10 } }] } };
  const byDoc = typecheckDiagnostics(report, [{ id: 7, text: "x" }, { id: 9, text: TEXT }], ["7", "9"]);
  assert.deepEqual([...byDoc.keys()], ["9"]);
  assert.equal(byDoc.get("9")[0].line, 2);
  assert.equal(textIndex("<text 12>"), 12);
  assert.equal(textIndex("request"), null);
});
