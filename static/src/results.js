// One sample request's result card: decision, expected-vs-actual badge, kubectl text, warnings, the
// (policy, binding, param) table with skip reasons, traces, mutation diffs, Kyverno rules, JSON outputs.
// Everything is built with createElement/textContent (dom.js): engine output may echo user text.

import { h, jsonBlock, jsonText, copyButton } from "./dom.js";
import { traceView } from "./trace.js";
import { gotoLink, messageNode, textIndex } from "./locations.js";
import { diffView } from "./diff.js";
import { valueAt } from "./field-path.js";
import { badge, mutationStep, outcomeKind, section } from "./result-parts.js";
import {
  kyvernoDeletionsView, kyvernoGenerateView, kyvernoMutatingPolicyView, kyvernoMutationView,
} from "./kyverno-results.js";

export { badge };

function decision(result) {
  if (!result) return { label: "No result", kind: "none" };
  if (result.exempt) return { label: "Exempt", kind: "none" };
  if (result.allowed === false) return { label: "Denied", kind: "denied" };
  if ((result.warnings || []).length) return { label: "Allowed with warnings", kind: "warned" };
  return { label: "Allowed", kind: "allowed" };
}

function verdictBadge(entry) {
  const verdict = entry.verdict || "none";
  if (verdict === "none") return badge("no expectation", "none", { dataset: { verdict } });
  return badge(verdict === "pass" ? "PASS" : "FAIL", verdict, { dataset: { verdict }, title: entry.verdictMessage || "" });
}

function expectedText(expected) {
  if (!expected) return "";
  const parts = [];
  if (expected.outcome) parts.push(expected.outcome);
  else if (expected.allowed !== undefined && expected.allowed !== null) parts.push(expected.allowed ? "allowed" : "denied");
  if (expected.messageContains) parts.push(`message contains “${expected.messageContains}”`);
  return parts.length ? `expected: ${parts.join(", ")}` : "";
}

function tupleTable(policies) {
  const rows = policies.map((p) => {
    const details = [];
    if (p.skipReason) details.push(h("div", { class: "muted" }, `skipped: ${p.skipReason}`));
    if (p.error) details.push(h("div", { class: "error-text" }, `${p.ignored ? "ignored error" : "error"}: `, messageNode(p.error, p.hint)));
    for (const d of p.decisions || []) {
      if (d.evaluation !== "admit" || d.message) {
        details.push(h("div", {}, `#${d.index} ${d.evaluation}${d.action && d.action !== d.evaluation ? ` → ${d.action}` : ""}`,
          d.message ? `: ${d.message}` : ""));
      }
    }
    for (const m of p.mutations || []) {
      details.push(h("div", { class: m.error ? "error-text" : "" },
        `mutation #${m.index} ${m.patchType}${m.changed ? " changed the object" : " no change"}${m.error ? `: ${m.error}` : ""}`));
    }
    const actions = p.validationActions ? p.validationActions.join(", ") : p.reinvocationPolicy ? `reinvocation ${p.reinvocationPolicy}` : "";
    // data-label: a phone shows each row as a card of labelled lines, its outcome first
    return h("tr", { dataset: { outcome: p.outcome || "" } },
      h("td", { dataset: { label: "kind" } }, shortKind(p.kind)),
      h("td", { dataset: { label: "policy" } }, p.policy ?? ""),
      h("td", { dataset: { label: "binding" } }, p.binding ?? "—"),
      h("td", { dataset: { label: "param" } }, p.param ?? "—"),
      h("td", { class: "tuple-outcome", dataset: { label: "outcome" } }, badge(p.outcome || "?", outcomeKind(p.outcome))),
      h("td", { class: "muted", dataset: { label: "config" } }, [p.failurePolicy, actions].filter(Boolean).join(" · ")),
      h("td", { dataset: { label: "why" } }, details));
  });
  return h("table", { class: "tuples", dataset: { testid: "tuples" } },
    h("thead", {}, h("tr", {}, ["kind", "policy", "binding", "param", "outcome", "config", "why"].map((c) => h("th", {}, c)))),
    h("tbody", {}, rows));
}

function shortKind(kind) {
  return { MutatingAdmissionPolicy: "MAP", ValidatingAdmissionPolicy: "VAP" }[kind || "ValidatingAdmissionPolicy"] || kind;
}

function traces(policies) {
  const traced = policies.filter((p) => p.trace);
  if (!traced.length) return null;
  return section(`Expression trace (${traced.length})`, h("div", {}, traced.map((p) =>
    h("details", { class: "trace-tuple" },
      h("summary", {}, `${shortKind(p.kind)} ${p.policy}${p.binding ? ` / ${p.binding}` : ""}${p.param ? ` / ${p.param}` : ""}`),
      traceView(p.trace)))), { testid: "trace" });
}

function mutationView(result) {
  const mutation = result.mutation;
  if (!mutation || !(mutation.mutations || []).length) return null;
  const original = result.request?.object ?? null;
  let previous = original;
  const steps = mutation.mutations.map((m) => {
    const before = previous;
    if (m.object) previous = m.object;
    return mutationStep(`${m.policy} / ${m.binding ?? "—"}${m.param ? ` / ${m.param}` : ""} · mutation #${m.index} ` +
      `(${m.patchType}, pass ${m.pass ?? 1})${m.error ? ` · error: ${m.error}` : m.changed ? "" : " · no change"}`, before, m.object);
  });
  const notes = [...(mutation.errors || []), ...(mutation.notes || [])].map((n) =>
    h("li", {}, typeof n === "string" ? n : n.message || jsonText(n)));
  return section("Mutations", h("div", {},
    h("h5", {}, "Whole chain"),
    diffView(original, mutation.patchedObject ?? result.patchedObject ?? original),
    h("h5", {}, "Each mutation"), steps,
    notes.length ? h("ul", { class: "notes" }, notes) : null,
    mutation.reinvoked?.length ? h("p", { class: "muted" }, `Reinvoked: ${mutation.reinvoked.map((r) => typeof r === "string" ? r : jsonText(r)).join(", ")}`) : null,
    jsonBlock("JSON patch (the webhook response's patch)", mutation.patch ?? [])), { open: true, testid: "mutation" });
}

function kyvernoView(kyverno) {
  if (!Array.isArray(kyverno) || !kyverno.length) return null;
  const rows = [];
  for (const policy of kyverno) {
    for (const rule of policy.rules || []) {
      rows.push(h("tr", {},
        h("td", {}, `${policy.namespace ? `${policy.namespace}/` : ""}${policy.policy}`),
        h("td", {}, rule.rule || (rule.autogen ? `autogen-${rule.autogen}` : (policy.mode || policy.mutations ? policy.kind : ""))),
        h("td", {}, badge(rule.result || "?", outcomeKind(rule.result))),
        h("td", { class: "word" }, rule.action ?? ""),
        h("td", {}, rule.message ?? "")));
    }
    if (policy.refused) { // the API server refused the request on the policy's webhook matchConditions
      rows.push(h("tr", {}, h("td", {}, policy.policy), h("td", {}, "matchConditions"), h("td", {}, badge("refused", "denied")),
        h("td", {}, ""), h("td", {}, policy.refused)));
    }
    if (policy.note && (policy.rules || []).length) {
      rows.push(h("tr", { class: "muted" }, h("td", {}, ""), h("td", { colspan: 4 }, policy.note)));
    }
    for (const rule of policy.notApplicable || []) {
      rows.push(h("tr", { class: "muted" }, h("td", {}, policy.policy), h("td", {}, typeof rule === "string" ? rule : rule.rule ?? jsonText(rule)),
        h("td", {}, badge("not applicable", "none")), h("td", {}, ""), h("td", {}, typeof rule === "object" && rule.reason ? rule.reason : "")));
    }
  }
  if (!rows.length) return null; // only mutate or generate rules: shown in their own sections
  return section("Kyverno rules", h("table", { class: "tuples" },
    h("thead", {}, h("tr", {}, ["policy", "rule", "result", "action", "message"].map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)), { open: true, testid: "kyverno" });
}

/** A Kyverno policy beside the admission policy Kyverno would generate from it: one row per policy (Kyverno's
 * outcome, the generated policy's, a note) and the generated objects. */
function generatedView(compared, { title, column, testid, kyvernoCell, generatedCell, note }) {
  if (!Array.isArray(compared) || !compared.length) return null;
  const rows = compared.map((c) => {
    const [kText, kKind] = kyvernoCell(c);
    const generated = c.skipped ? badge("not generated", "none") : badge(...generatedCell(c));
    return h("tr", {}, h("td", {}, c.policy), h("td", {}, badge(kText, kKind)), h("td", {}, generated),
      h("td", {}, (c.skipped ? c.skipped : note(c)) || ""));
  });
  const generated = compared.filter((c) => c.generated?.policy).map((c) =>
    jsonBlock(`Generated for ${c.policy}`, [c.generated.policy, c.generated.binding]));
  return section(title, h("div", {},
    h("table", { class: "tuples" },
      h("thead", {}, h("tr", {}, ["policy", "Kyverno", column, "message"].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows)),
    ...generated), { open: false, testid });
}

/** Each Kyverno CEL policy beside the ValidatingAdmissionPolicy Kyverno would generate from it, with both verdicts. */
function generatedVapView(result) {
  const kyverno = new Map((result.kyverno || []).map((p) => [p.policy, p]));
  return generatedView(result.kyvernoGeneratedVAPs, {
    title: "Kyverno policy vs its generated ValidatingAdmissionPolicy",
    column: "generated VAP",
    testid: "generated-vap",
    kyvernoCell: (c) => {
      const rules = kyverno.get(c.policy)?.rules || [];
      if (rules.some((r) => r.result === "fail" || r.result === "error")) return ["fails", "denied"];
      if (rules.some((r) => r.result === "pass")) return ["passes", "allowed"];
      return ["skips", "none"];
    },
    generatedCell: (c) => [c.allowed ? "allowed" : "denied", c.allowed ? "allowed" : "denied"],
    note: (c) => c.status?.message || (c.warnings || []).join("; "),
  });
}

/** Each MutatingPolicy beside the MutatingAdmissionPolicy Kyverno would generate from it: both patches on the
 * object the policy received, and whether they leave the same object. */
function generatedMapView(result) {
  const patchText = (patch) => (patch?.length ? JSON.stringify(patch) : "no change");
  return generatedView(result.kyvernoGeneratedMAPs, {
    title: "MutatingPolicy vs its generated MutatingAdmissionPolicy",
    column: "generated MAP",
    testid: "generated-map",
    kyvernoCell: (c) => (c.skipped ? ["not compared", "none"] : [c.policyPatch?.length ? "patches" : "no change", "allowed"]),
    generatedCell: (c) => {
      if (c.errors?.some((e) => e.severity === "error")) return ["refused", "denied"];
      if (!c.allowed) return ["denied", "denied"];
      return c.agrees ? ["same object", "allowed"] : ["different object", "denied"];
    },
    note: (c) => (c.errors || []).map((e) => e.text).join("; ") || c.status?.message
      || `MutatingPolicy: ${patchText(c.policyPatch)} — generated MAP: ${patchText(c.patch)}`,
  });
}

/** The fields the API server's defaulting set before any policy ran: why `replicas` is 1. */
function defaultedView(result) {
  const sides = [["object", result.request?.object], ["oldObject", result.request?.oldObject]];
  const rows = [];
  for (const [side, object] of sides) {
    for (const path of result.defaulted?.[side] || []) {
      const value = valueAt(object, path);
      if (value !== null && typeof value === "object" && Object.keys(value).length) continue; // its fields are listed
      rows.push(h("tr", {}, h("td", {}, side), h("td", { class: "code" }, path), h("td", { class: "code" }, jsonText(value))));
    }
  }
  if (!rows.length) return null;
  return section(`Defaulted by the API server (${rows.length})`, h("div", {},
    h("p", { class: "muted" }, "Set when the request was decoded, before any policy ran: policies see the object as admitted."),
    h("table", { class: "tuples", dataset: { testid: "defaulted-fields" } },
      h("thead", {}, h("tr", {}, ["object", "field", "value"].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows))), { testid: "defaulted" });
}

/** Where an error is, as a link to its place when it has one: {docId} for a document's own errors, else
 * the document the engine names (`document`: the i-th document). */
function placeLink(error, docId) {
  if (!error?.line) return null;
  const index = textIndex(error);
  if (docId === undefined && index === null) return null;
  return gotoLink(error, docId !== undefined ? { docId } : { docIndex: index });
}

function errorList(errors, docId) {
  if (!errors?.length) return null;
  return h("ul", { class: "error-list" }, errors.map((e) => {
    const where = [e.kind, e.name, e.path].filter(Boolean).join(" ");
    const located = e.located === false ? " (no line: given as an object, not text)" : "";
    const link = placeLink(e, docId);
    const policyLink = e.policyError ? placeLink(e.policyError, textIndex(e.policyError) === null ? docId : undefined) : null;
    // "error: Kind name path (line 3:5) — message"; with nothing to name, "error at line 3:5: message".
    const lead = where ? [`${e.severity || "error"}: ${where}`, link ? " (" : "", link, link ? ")" : "", located, " — "]
      : [`${e.severity || "error"}`, link ? " at " : "", link, located, ": "];
    return h("li", { class: `sev-${e.severity || "error"}` }, ...lead,
      messageNode(e.message, e.hint), policyLink ? h("span", {}, " → policy error at ", policyLink) : null);
  }));
}

/** The card for one request entry {id, name, result, expected, verdict, verdictMessage}. */
export function requestCard(entry, { stale = false } = {}) {
  const result = entry.result || {};
  const d = decision(entry.result);
  const kubectlText = result.kubectl?.text || "";
  const card = h("article", { class: `result-card${stale ? " stale" : ""}`, dataset: { requestId: String(entry.id ?? ""), decision: d.kind } },
    h("header", { class: "result-head" },
      h("h4", {}, entry.name || "request"),
      badge(d.label, d.kind, { dataset: { testid: "decision" } }),
      verdictBadge(entry),
      h("span", { class: "muted expected" }, expectedText(entry.expected)),
    ),
    entry.verdict === "fail" && entry.verdictMessage ? h("p", { class: "error-text verdict-message" }, entry.verdictMessage) : null,
    result.exempt ? h("p", { class: "muted" }, `Exempt: ${result.exempt}`) : null,
    // Read from stdin, as the engine's text says (`error when creating "STDIN"`): header and text agree.
    kubectlText ? h("div", { class: "kubectl" }, h("div", { class: "kubectl-head" }, "$ kubectl apply -f - < request.yaml",
      copyButton(() => kubectlText)), h("pre", { class: "code kubectl-text", dataset: { testid: "kubectl" } }, kubectlText)) : null,
    (result.warnings || []).length && !kubectlText ? h("ul", { class: "warnings" }, result.warnings.map((w) => h("li", {}, `Warning: ${w}`))) : null,
    errorList((result.errors || []).filter((e) => e.document == null)), // documents' own: shown above
    (result.policies || []).length ? section(`Policies (${summaryText(result.summary)})`, tupleTable(result.policies), { open: true })
      : (result.kyverno || []).length ? null : h("p", { class: "muted" }, "No admission policy took part."),
    traces([...(result.policies || []), ...(result.kyverno || [])]), // VAP tuples and Kyverno CEL policies
    defaultedView(result),
    mutationView(result),
    kyvernoMutatingPolicyView(result.kyverno),
    kyvernoMutationView(result),
    kyvernoView(result.kyverno),
    kyvernoGenerateView(result.kyverno),
    kyvernoDeletionsView(result.deletions),
    generatedVapView(result),
    generatedMapView(result),
    Object.keys(result.auditAnnotations || {}).length ? jsonBlock("Audit annotations", result.auditAnnotations) : null,
    result.response ? jsonBlock("AdmissionReview response", result.response, { testid: "review" }) : null,
    result.auditEvent ? jsonBlock("Audit event", result.auditEvent, { testid: "audit" }) : null,
    jsonBlock("Full result JSON", result),
  );
  // On a phone a card's tables scroll sideways: each is a keyboard stop, so the scrolling is reachable.
  for (const table of card.querySelectorAll("table")) table.tabIndex = 0;
  return card;
}

function summaryText(summary) {
  if (!summary) return "";
  return Object.entries(summary).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ") || "none";
}

/** The configuration errors of the documents: [{id, name, errors}] → a list, or null when clean. */
export function documentErrorsView(documents) {
  const withErrors = (documents || []).filter((d) => (d.errors || []).length);
  if (!withErrors.length) return null;
  return h("section", { class: "config-errors", dataset: { testid: "config-errors" } },
    h("h3", {}, "Configuration errors"),
    withErrors.map((d) => h("div", {}, h("h4", {}, d.name || `document ${d.id}`), errorList(d.errors, d.id))));
}
