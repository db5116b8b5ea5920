// The expression trace of one (policy, binding, param) tuple: values, types, costs, errors, lazy order.

import { h, compactValue } from "./dom.js";
import { gotoLink, messageNode, textIndex } from "./locations.js";

const SECTIONS = [
  ["matchConditions", "Match conditions", (row) => row.name],
  ["variables", "Variables (order of first use)", (row) => `${row.name}${row.phase ? ` · ${row.phase}` : ""}`],
  ["validations", "Validations", (row) => `#${row.index}`],
  ["messageExpressions", "Message expressions", (row) => `#${row.index}`],
  ["auditAnnotations", "Audit annotations", (row) => row.key],
  ["mutations", "Mutations", (row) => `#${row.index} ${row.patchType || ""}`],
];

function valueCell(row) {
  if (row.evaluated === false) return h("td", { class: "muted" }, "not evaluated");
  if ("applyConfiguration" in row && row.applyConfiguration != null) {
    return h("td", {}, h("code", { class: "value" }, compactValue(row.applyConfiguration)));
  }
  if ("patch" in row && row.patch != null) return h("td", {}, h("code", { class: "value" }, compactValue(row.patch)));
  return h("td", {}, h("code", { class: "value" }, compactValue(row.value)));
}

function sectionTable(key, title, label, rows) {
  return h("div", { class: "trace-section" },
    h("h5", {}, title),
    h("table", { class: "trace", dataset: { section: key } },
      h("thead", {}, h("tr", {}, ["#", "name", "expression", "value", "type", "cost", "error / result"]
        .map((c) => h("th", {}, c)))),
      h("tbody", {}, rows.map((row, order) => h("tr", { class: row.error ? "row-error" : "" },
        h("td", { class: "muted" }, String(order + 1)),
        h("td", {}, label(row) ?? ""),
        h("td", {}, h("code", { class: "cel-inline" }, row.expression || "")),
        valueCell(row),
        h("td", {}, row.type || ""),
        h("td", { class: "num" }, row.cost == null ? "" : String(row.cost)),
        h("td", { class: row.error ? "error-text" : "" }, row.error ? errorCell(row) : resultText(row)),
      )))));
}

/** The error as the API server words it, then a link to the expression and a hint. */
function errorCell(row) {
  const at = row.location;
  const index = at ? textIndex(at) : null;
  const link = at?.line ? gotoLink(at, index !== null ? { docIndex: index } : { docIndex: 0 }) : null;
  return [messageNode(row.error, row.hint), link ? h("span", { class: "muted" }, " at ", link) : null];
}

function resultText(row) {
  const parts = [];
  if (row.evaluation_result) parts.push(row.evaluation_result);
  if (row.action && row.action !== row.evaluation_result) parts.push(`action ${row.action}`);
  if (row.message) parts.push(`message: ${row.message}`);
  if (row.messageSource && row.messageSource !== "expression") parts.push(`(${row.messageSource})`);
  return parts.join(" · ");
}

/** The trace as tables, one per non-empty section, plus the budget. */
export function traceView(trace) {
  if (!trace) return h("p", { class: "muted" }, "No trace (skipped or not evaluated).");
  const parts = [];
  for (const [key, title, label] of SECTIONS) {
    const rows = trace[key];
    if (Array.isArray(rows) && rows.length) parts.push(sectionTable(key, title, label, rows));
  }
  const budget = trace.budget && trace.budget.validations;
  if (budget) {
    parts.push(h("p", { class: "muted" },
      `Validation cost budget: ${budget.limit - budget.remaining} used of ${budget.limit}`));
  }
  if (!parts.length) parts.push(h("p", { class: "muted" }, "Nothing was evaluated."));
  return h("div", { class: "trace-view" }, parts);
}
