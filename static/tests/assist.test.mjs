// Unit tests of the pure front-end modules (node --test; no browser): YAML paths, CEL ranges, schema lint,
// completion, the type checker's field locator and the line diff.

import test from "node:test";
import assert from "node:assert/strict";
import { EditorState } from "@codemirror/state";
import { CompletionContext } from "@codemirror/autocomplete";
import { pathAbove, documentAround } from "../src/yaml-path.js";
import { celRanges } from "../src/cel-in-yaml.js";
import { celTokens } from "../src/cel-syntax.js";
import { lintYaml, yamlCompletion, serverDiagnostics } from "../src/yaml-assist.js";
import { schemaFor, schemaAt, KIND_SCHEMAS } from "../src/schemas.js";
import { locateField } from "../src/field-locator.js";
import { lineDiff } from "../src/diff.js";

const VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: |
      'too many: ' +
      string(object.spec.replicas)
  - expression: 'has(object.metadata.labels)'
`;

test("pathAbove follows mappings and list items by indentation", () => {
  const lines = VAP.split("\n");
  assert.deepEqual(pathAbove(lines, 7, 4), ["spec", "validations", "[]"]);
  assert.deepEqual(pathAbove(lines, 6, 2, { currentDash: true, dashColumn: 2 }), ["spec", "validations", "[]"]);
  assert.deepEqual(pathAbove(lines, 5, 2), ["spec"]);
  assert.deepEqual(pathAbove(lines, 1, 0), []);
});

test("documentAround isolates the YAML document of a position", () => {
  const text = "kind: A\n---\nkind: B\nspec:\n  x: 1\n";
  const around = documentAround(text, text.indexOf("x: 1"));
  assert.equal(around.segment.trim(), "kind: B\nspec:\n  x: 1");
});

test("celRanges finds plain, quoted and block expressions but not other keys", () => {
  const pieces = celRanges(VAP).map((r) => VAP.slice(r.from, r.to));
  assert.deepEqual(pieces, ["object.spec.replicas <= 5", "'too many: ' +", "string(object.spec.replicas)",
    "has(object.metadata.labels)"]);
  assert.deepEqual(celRanges("message: object.foo\nname: x\n"), []);
});

test("celTokens classifies CEL words", () => {
  const text = "size(object.x) > 2 && 'a' in ['a'] || true";
  const kinds = celTokens(text).map((t) => `${t.type}:${text.slice(t.from, t.to)}`);
  assert.ok(kinds.includes("function:size"));
  assert.ok(kinds.includes("variable:object"));
  assert.ok(kinds.includes("number:2"));
  assert.ok(kinds.includes("string:'a'"));
  assert.ok(kinds.includes("keyword:in"));
  assert.ok(kinds.includes("keyword:true"));
  assert.ok(kinds.includes("operator:&&"));
});

test("lintYaml reports YAML syntax errors with their position", () => {
  const text = "kind: Pod\nmetadata:\n  name: [x\n";
  const [first] = lintYaml(text, "document");
  assert.equal(first.severity, "error");
  assert.match(first.message, /^YAML: /);
  assert.ok(first.from >= text.indexOf("[x"));
});

test("lintYaml warns about unknown fields, wrong types and enum values from the schema", () => {
  const text = VAP.replace("spec:\n", "spec:\n  failurePolicy: Sometimes\n  validatons: []\n  variables: {}\n");
  const messages = lintYaml(text, "document").map((d) => d.message);
  assert.ok(messages.some((m) => m.startsWith('unknown field "spec.validatons"')), messages);
  assert.ok(messages.some((m) => m.includes('spec.failurePolicy: unsupported value "Sometimes"')), messages);
  assert.ok(messages.some((m) => m === "spec.variables: expected a list, got object"), messages);
  assert.deepEqual(lintYaml(VAP, "document"), []);
  assert.deepEqual(lintYaml("anything: {goes: here}\n", "input"), []);
});

test("a document of an unknown kind gets no kind warning", () => {
  assert.deepEqual(lintYaml("apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata:\n  name: x\nmaxReplicas: 3\n", "document"), []);
});

test("schemaFor picks by kind, and by shape for an AdmissionRequest", () => {
  assert.equal(schemaFor({ kind: "ValidatingAdmissionPolicyBinding" }, "document"), KIND_SCHEMAS.ValidatingAdmissionPolicyBinding);
  assert.ok(schemaFor({ operation: "UPDATE", object: {} }, "request").properties.oldObject);
  assert.deepEqual(schemaAt(KIND_SCHEMAS.MutatingAdmissionPolicy, ["spec", "mutations", "[]", "patchType"]).enum,
    ["ApplyConfiguration", "JSONPatch"]);
});

function complete(text, role = "document") {
  const pos = text.indexOf("|");
  const doc = text.replace("|", "");
  const state = EditorState.create({ doc, selection: { anchor: pos } });
  return yamlCompletion(role)(new CompletionContext(state, pos, true));
}

test("completion offers the field names of the schema at the cursor", () => {
  const result = complete("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nspec:\n  validations:\n  - expression: x\n    mess|\n");
  const labels = result.options.map((o) => o.label);
  assert.ok(labels.includes("messageExpression") && labels.includes("reason"), labels);
  assert.ok(!labels.includes("validations"));
});

test("completion offers enum values after a key", () => {
  const result = complete("kind: ValidatingAdmissionPolicyBinding\nspec:\n  validationActions:\n  - W|\n");
  assert.deepEqual(result.options.map((o) => o.label), ["Deny", "Warn", "Audit"]);
  const failure = complete("kind: ValidatingAdmissionPolicy\nspec:\n  failurePolicy: |\n");
  assert.deepEqual(failure.options.map((o) => o.label), ["Fail", "Ignore"]);
});

test("completion inside an expression offers CEL variables, and variables.<name> from the policy", () => {
  const roots = complete("kind: ValidatingAdmissionPolicy\nspec:\n  validations:\n  - expression: ob|\n");
  assert.ok(roots.options.some((o) => o.label === "object"));
  const named = complete("kind: ValidatingAdmissionPolicy\nspec:\n  variables:\n  - name: replicas\n    expression: object.spec.replicas\n  validations:\n  - expression: variables.|\n");
  assert.deepEqual(named.options.map((o) => o.label), ["replicas"]);
});

test("serverDiagnostics places the engine's line and column, clamped to the text", () => {
  const state = EditorState.create({ doc: "a: 1\nb: 2\n" });
  const [at, far] = serverDiagnostics(state.doc, [{ line: 2, column: 4, message: "bad", severity: "error" },
    { line: 99, message: "later", severity: "warning" }]);
  assert.equal(state.doc.sliceString(at.from, at.to), "2");
  assert.equal(far.severity, "warning");
  assert.ok(far.from <= state.doc.length);
});

test("locateField maps a type-check finding into the document", () => {
  const quoted = locateField(VAP, "demo", "spec.validations[0].expression", 1, 22);
  const line = VAP.split("\n")[quoted.line - 1];
  assert.equal(line.slice(quoted.column - 1, quoted.column + 1), "<=");
  const block = locateField(VAP, "demo", "spec.validations[0].messageExpression", 2, 8);
  assert.equal(VAP.split("\n")[block.line - 1].slice(block.column - 1, block.column + 5), "object");
  assert.equal(locateField(VAP, "other", "spec.validations[0].expression"), null);
});

test("lineDiff keeps common lines and marks the rest", () => {
  const diff = lineDiff(["a", "b", "c"], ["a", "x", "c", "d"]).map((d) => d.op + d.text);
  assert.deepEqual(diff, [" a", "-b", "+x", " c", "+d"]);
});
