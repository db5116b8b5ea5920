// A line diff (longest common subsequence) of two objects rendered as YAML, for mutation views.

import { stringify } from "yaml";
import { h } from "./dom.js";

export function yamlText(value) {
  if (value === null || value === undefined) return "";
  try {
    return stringify(value, { lineWidth: 0 });
  } catch {
    return JSON.stringify(value, null, 2);
  }
}

/** [{op: " "|"-"|"+", text}] from two line arrays. Falls back to all-removed/all-added when too large. */
export function lineDiff(before, after) {
  const n = before.length;
  const m = after.length;
  if (n * m > 4_000_000) {
    return [...before.map((text) => ({ op: "-", text })), ...after.map((text) => ({ op: "+", text }))];
  }
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = before[i] === after[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      out.push({ op: " ", text: before[i] });
      i++;
      j++;
    } else if (table[i + 1][j] >= table[i][j + 1]) out.push({ op: "-", text: before[i++] });
    else out.push({ op: "+", text: after[j++] });
  }
  while (i < n) out.push({ op: "-", text: before[i++] });
  while (j < m) out.push({ op: "+", text: after[j++] });
  return out;
}

/** A <pre> with the diff of `before` → `after` (objects), changed lines coloured, unchanged lines kept. */
export function diffView(before, after) {
  const lines = lineDiff(yamlText(before).split("\n"), yamlText(after).split("\n"))
    .filter((line, index, all) => !(index === all.length - 1 && line.text === ""));
  const changed = lines.some((line) => line.op !== " ");
  return h("pre", { class: "code diff", dataset: { changed: String(changed) } },
    lines.map((line) => h("span", { class: line.op === "+" ? "diff-add" : line.op === "-" ? "diff-del" : "diff-same" },
      `${line.op} ${line.text}\n`)));
}
