// Finds CEL expressions inside YAML (values of `expression:`, `messageExpression:`, `valueExpression:` …)
// and marks them: a distinct background for the whole value, token colours inside it.

import { Prec, RangeSetBuilder } from "@codemirror/state";
import { Decoration, ViewPlugin } from "@codemirror/view";
import { celTokens } from "./cel-syntax.js";

export const CEL_KEYS = new Set(["expression", "messageExpression", "valueExpression", "condition", "rule"]);

const KEY_LINE = /^(\s*)((?:-\s+)*)([A-Za-z]+):(\s*)(.*)$/;

/** Ranges [{from, to}] (offsets in `text`) of the CEL source inside expression-valued YAML keys. */
export function celRanges(text) {
  const lines = text.split("\n");
  const starts = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const ranges = [];
  for (let i = 0; i < lines.length; i++) {
    const match = KEY_LINE.exec(lines[i]);
    if (!match || !CEL_KEYS.has(match[3])) continue;
    const keyColumn = match[1].length + match[2].length;
    const valueStart = keyColumn + match[3].length + 1 + match[4].length;
    const rest = match[5];
    if (/^[|>][-+0-9]*\s*(#.*)?$/.test(rest)) {
      i = blockLines(lines, starts, i, keyColumn, ranges);
    } else if (rest.startsWith('"') || rest.startsWith("'")) {
      const quote = rest[0];
      const close = findClosingQuote(rest, quote);
      const end = close < 0 ? rest.length : close;
      if (end > 1) ranges.push({ from: starts[i] + valueStart + 1, to: starts[i] + valueStart + end });
    } else if (rest.length > 0) {
      const comment = rest.search(/\s#/);
      const value = comment < 0 ? rest : rest.slice(0, comment);
      ranges.push({ from: starts[i] + valueStart, to: starts[i] + valueStart + value.trimEnd().length });
      i = blockLines(lines, starts, i, keyColumn, ranges); // a plain scalar may continue on deeper lines
    }
  }
  return ranges.filter((r) => r.to > r.from);
}

function findClosingQuote(text, quote) {
  for (let j = 1; j < text.length; j++) {
    if (quote === '"' && text[j] === "\\") j++;
    else if (text[j] === quote) {
      if (quote === "'" && text[j + 1] === "'") j++;
      else return j;
    }
  }
  return -1;
}

/** Mark the lines after `i` indented deeper than `keyColumn`; returns the last line index consumed. */
function blockLines(lines, starts, i, keyColumn, ranges) {
  let last = i;
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j];
    if (line.trim() === "") continue;
    const indent = line.length - line.trimStart().length;
    if (indent <= keyColumn) break;
    ranges.push({ from: starts[j] + indent, to: starts[j] + line.length });
    last = j;
  }
  return last;
}

const wholeMark = Decoration.mark({ class: "cm-cel" });
const tokenMarks = {};
for (const type of ["keyword", "string", "number", "operator", "variable", "function", "comment"]) {
  tokenMarks[type] = Decoration.mark({ class: `cm-cel-${type}` });
}

function buildDecorations(state) {
  const text = state.doc.toString();
  const builder = new RangeSetBuilder();
  for (const range of celRanges(text)) {
    builder.add(range.from, range.to, wholeMark);
    for (const token of celTokens(text.slice(range.from, range.to))) {
      builder.add(range.from + token.from, range.from + token.to, tokenMarks[token.type]);
    }
  }
  return builder.finish();
}

/** The extension: lowest precedence so these marks sit inside the YAML highlighter's spans and win. */
export const celInYaml = Prec.lowest(
  ViewPlugin.fromClass(
    class {
      constructor(view) {
        this.decorations = buildDecorations(view.state);
      }
      update(update) {
        if (update.docChanged) this.decorations = buildDecorations(update.state);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  ),
);

/** Is `pos` inside a CEL range of `text`? (completion picks CEL words there) */
export function inCelRange(text, pos) {
  return celRanges(text).some((r) => pos >= r.from && pos <= r.to);
}
