// Pieces every result view shares: badges, collapsible sections, outcome colours, and one mutation step
// (what one policy or rule did to the object, as a diff). Kept apart so the MutatingAdmissionPolicy view and
// the Kyverno views (kyverno-results.js) render mutations the same way.

import { h } from "./dom.js";
import { diffView } from "./diff.js";

export function badge(text, kind, extra = {}) {
  return h("span", { class: `badge badge-${kind}`, ...extra }, text);
}

export function section(title, body, { open = false, testid } = {}) {
  return h("details", { class: "result-section", open, dataset: testid ? { testid } : undefined },
    h("summary", {}, title), body);
}

export function outcomeKind(outcome) {
  return { admitted: "allowed", denied: "denied", warned: "warned", audited: "warned", skipped: "none",
    error: "denied", mutated: "mutated", pass: "allowed", fail: "denied", skip: "none", warn: "warned",
    create: "allowed", update: "mutated", delete: "denied" }[outcome] || "none";
}

/** One step of a mutation chain: its summary (text or nodes), then the diff from `before` to `after` and any
 * further parts (a message, that step's JSON patch). No `after`: the step produced no object. */
export function mutationStep(summary, before, after, ...parts) {
  return h("details", { class: "mutation-step" }, h("summary", {}, summary),
    ...parts, after ? diffView(before, after) : h("p", { class: "muted" }, "No object produced."));
}
