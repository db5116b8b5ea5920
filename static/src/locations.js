// Where an engine error is in the text: its range in a CodeMirror document, a link that moves the cursor
// there, and its message with cel-go's caret excerpt (` | expr` / ` | ...^`) set apart in a monospace block.
// The engine counts columns in code points (as cel-go and YAML do); CodeMirror in UTF-16 units.

import { h } from "./dom.js";

export const GOTO_EVENT = "ap-goto";

/** Offset in `text` (a line, UTF-16) of 1-based code-point column `column` (clamped to the line). */
export function columnOffset(text, column) {
  let offset = 0;
  for (let seen = 1; seen < column && offset < text.length; seen += 1) {
    offset += text.codePointAt(offset) > 0xffff ? 2 : 1;
  }
  return Math.min(offset, text.length);
}

/** {from, to} of an engine error {line, column, endLine?, endColumn?} in a CodeMirror `doc`. */
export function errorRange(doc, error) {
  const lineNumber = Math.min(Math.max(error.line || 1, 1), doc.lines);
  const line = doc.line(lineNumber);
  if (!error.column) return { from: line.from, to: line.to };
  const from = line.from + columnOffset(line.text, error.column);
  let to = line.to;
  if (error.endLine && error.endColumn) {
    const endLine = doc.line(Math.min(Math.max(error.endLine, lineNumber), doc.lines));
    to = endLine.from + columnOffset(endLine.text, error.endColumn);
  }
  if (to <= from) to = Math.min(from + 1, doc.length);
  return { from: Math.min(from, doc.length), to: Math.min(to, doc.length) };
}

/** A message as text, with a trailing caret excerpt (lines starting " | ") in a <pre>; hint after it. */
export function messageNode(message, hint) {
  const text = String(message ?? "");
  const cut = text.search(/\n \| /);
  const head = cut < 0 ? text : text.slice(0, cut);
  const excerpt = cut < 0 ? null : h("pre", { class: "caret-excerpt" }, text.slice(cut + 1));
  return h("span", { class: "error-message" }, head, excerpt,
    hint ? h("span", { class: "error-hint", dataset: { testid: "hint" } }, `Hint: ${hint}`) : null);
}

/** Which document text a place is in: its `document` (the index of the text; the engine's `source` is then
 * the document's name), or `<text 2>` (the engine's name for the third text when it has none) → 2; null when
 * it is in no document (the request). Takes the place (an error, a location) or its source. */
export function textIndex(place) {
  if (place && typeof place === "object") {
    const named = textIndex(place.source);
    if (named !== null) return named;
    return Number.isInteger(place.document) && place.source !== "request" ? place.document : null;
  }
  const match = /^<text (\d+)>$/.exec(String(place ?? ""));
  return match ? Number(match[1]) : null;
}

/**
 * A link "line L:C" that moves the cursor to the error. `target` names the text: {docId} or {docIndex}.
 * Returns null when the error has no line (an object given as JSON has no text to point into).
 */
export function gotoLink(error, target) {
  if (!error || !error.line) return null;
  const label = `line ${error.line}${error.column ? `:${error.column}` : ""}`;
  return h("a", { href: "#", class: "goto-link", dataset: { testid: "goto", line: String(error.line), column: String(error.column || 1) },
    title: "Show in the editor",
    onclick: (event) => {
      event.preventDefault();
      event.currentTarget.dispatchEvent(new CustomEvent(GOTO_EVENT, { bubbles: true,
        detail: { ...target, line: error.line, column: error.column || 1 } }));
    } }, label);
}
