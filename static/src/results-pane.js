// The right column: evaluation status, configuration errors, one card per sample request (in the
// workspace's order), streamed in as results arrive; cards of an older version are dimmed, not removed, and
// while the results shown predate an edit the whole column is marked stale (class, aria-busy, a cue).

import { h, replaceChildren, jsonBlock } from "./dom.js";
import { requestCard, documentErrorsView } from "./results.js";
import { gotoLink, messageNode, textIndex } from "./locations.js";

const CLOCK_FIELDS = new Set(["requestReceivedTimestamp", "stageTimestamp"]);

export class ResultsPane {
  constructor(root) {
    this.root = root;
    this.status = h("p", { class: "eval-status", "aria-live": "polite", dataset: { testid: "eval-status" } }, "Waiting for results…");
    // Not live regions: a cue per keystroke, or a figure per result, would be read out all the time.
    this.staleCue = h("span", { class: "stale-cue", dataset: { testid: "stale-cue" } }, "Stale: updating…");
    this.latencyNote = h("span", { class: "eval-latency muted", dataset: { testid: "eval-latency" } });
    this.general = h("div", { class: "general-errors" });
    this.typecheckBox = h("div", { class: "typecheck-box" });
    this.cards = h("div", { class: "result-cards" });
    this.version = -1;
    this.blocked = false; // a document has an error: the type check cannot be complete
    this.entries = new Map();
    this.signatures = new Map(); // request key → the entry its card shows, as JSON
    replaceChildren(root, h("div", { class: "eval-bar" }, this.status, this.latencyNote, this.staleCue),
      this.general, this.typecheckBox, this.cards);
    this.markStale(false);
  }

  /** The results shown do not reflect the newest edit (yet): kept on screen, marked, never cleared. */
  markStale(stale) {
    this.root.classList.toggle("results-stale", stale);
    this.root.setAttribute("aria-busy", stale ? "true" : "false");
  }

  /** How long the oldest keystroke these results answer waited for them, measured in the page up to the
   * frame that showed them. */
  latency(ms) {
    this.latencyNote.textContent = `· shown ${Math.round(ms)} ms after your keystroke`;
    this.latencyNote.title = "From the keystroke to the frame that showed this result, measured in this page";
    this.latencyNote.dataset.ms = String(Math.round(ms));
  }

  evaluating(version) {
    if (version != null && version < this.version) return;
    this.version = version ?? this.version;
    this.status.textContent = version != null ? `Evaluating version ${version}…` : "Evaluating…";
    this.status.dataset.state = "evaluating";
    for (const card of this.cards.children) card.classList.add("stale");
  }

  /** documentErrors message: per-document errors, errors with no document, typecheck output. */
  documentErrors({ version, documents, errors, typecheck }) {
    if (version != null && version < this.version) return;
    const parts = [documentErrorsView(documents)];
    if ((errors || []).length) {
      parts.push(h("section", { class: "config-errors" }, h("h3", {}, "Other problems"),
        h("ul", { class: "error-list" }, errors.map((e) => h("li", { class: `sev-${e.severity || "error"}` },
          `${e.severity || "error"}: `, messageNode(e.message, e.hint))))));
    }
    replaceChildren(this.general, parts.filter(Boolean));
    // A policy that does not load (YAML or CEL compile error) is not type-checked: never "no type errors" then.
    this.blocked = (documents || []).some((d) => (d.errors || []).some((e) => (e.severity || "error") === "error"))
      || (errors || []).some((e) => (e.severity || "error") === "error");
    if (typecheck !== undefined) this.typecheck(version, typecheck);
  }

  /** The type checker's report {policyName: report} (sent after `done`: it is slower than evaluating). */
  typecheck(version, typecheck) {
    if (version != null && version < this.version) return;
    replaceChildren(this.typecheckBox, typecheck && Object.keys(typecheck).length ? typecheckView(typecheck, this.blocked) : null);
  }

  /** The entry shown for a request (by id), with its result: what an `unchanged` result message refers to. */
  kept(id) {
    return this.entries.get(String(id));
  }

  /** One request's entry {id, name, result, expected, verdict, verdictMessage}. */
  result(version, entry, order) {
    if (version != null && version < this.version) return;
    const key = String(entry.id ?? entry.name);
    this.entries.set(key, entry);
    const old = [...this.cards.children].find((c) => c.dataset.requestId === key);
    // An edit often leaves most results as they were: their cards stay (no rebuild, no layout to redo). The
    // audit event's clock readings differ every time and decide nothing.
    const signature = JSON.stringify(entry, (key, value) => (CLOCK_FIELDS.has(key) ? undefined : value));
    if (old && this.signatures.get(key) === signature) {
      old.classList.remove("stale");
      return;
    }
    this.signatures.set(key, signature);
    const card = requestCard(entry);
    if (old) old.replaceWith(card);
    else {
      this.cards.appendChild(card);
      this.sort(order);
    }
  }

  done(version, ms, order) {
    if (version != null && version < this.version) return;
    const keep = new Set(order.map((r) => String(r.id)));
    for (const card of [...this.cards.children]) if (!keep.has(card.dataset.requestId)) card.remove();
    this.sort(order);
    const failures = [...this.entries.values()].filter((e) => keep.has(String(e.id)) && e.verdict === "fail").length;
    const passes = [...this.entries.values()].filter((e) => keep.has(String(e.id)) && e.verdict === "pass").length;
    const tests = passes + failures ? ` · tests: ${passes} passed, ${failures} failed` : "";
    this.status.textContent = `${version != null ? `Version ${version} evaluated` : "Evaluated"}${ms != null ? ` in ${ms} ms (server)` : ""}${tests}`;
    this.status.dataset.state = failures ? "failed" : "done";
    if (!order.length) replaceChildren(this.cards, h("p", { class: "muted" }, "Add a sample request to see a decision."));
  }

  /** A whole EvaluationResult (REST): documents, requests. */
  showAll(evaluation, order) {
    const version = evaluation.version ?? null;
    this.version = -1;
    this.evaluating(version);
    this.documentErrors({ version, documents: evaluation.documents, errors: evaluation.errors, typecheck: evaluation.typecheck });
    replaceChildren(this.cards);
    (evaluation.requests || []).forEach((entry, index) => {
      this.result(version, { ...entry, id: entry.id ?? order[index]?.id ?? index }, order);
    });
    this.done(version, evaluation.ms ?? null, order);
  }

  error(text) {
    this.status.textContent = text;
    this.status.dataset.state = "error";
  }

  /** Cards in the workspace's order (moved only when out of place). */
  sort(order) {
    const rank = new Map(order.map((r, index) => [String(r.id), index]));
    const cards = [...this.cards.children].sort((a, b) =>
      (rank.get(a.dataset.requestId) ?? 1e9) - (rank.get(b.dataset.requestId) ?? 1e9));
    if (cards.every((card, index) => this.cards.children[index] === card)) return;
    for (const card of cards) this.cards.appendChild(card);
  }
}

/** The type checker's findings; the summary counts the policies checked and those that could not be. */
function typecheckView(typecheck, blocked) {
  const items = [];
  let checked = 0;
  let unchecked = 0;
  for (const [policy, report] of Object.entries(typecheck)) {
    if (report?.notChecked) {
      unchecked += 1;
      const at = report.policyError;
      const index = at ? textIndex(at) : null;
      const link = at?.line ? gotoLink(at, { docIndex: index ?? 0 }) : null;
      items.push(h("li", { class: "sev-info", dataset: { testid: "not-checked" } },
        `${policy}: not type-checked: ${report.notChecked}`, link ? h("span", {}, " (", link, ")") : null));
      continue;
    }
    if (report?.error) {
      unchecked += 1;
      items.push(h("li", { class: "sev-error" }, `${policy}: ${report.error}`));
      continue;
    }
    checked += 1;
    const diagnostics = report?.diagnostics
      || (report?.status?.typeChecking?.expressionWarnings || []).map((w) => ({ fieldRef: w.fieldRef, message: w.warning, severity: "warning" }));
    for (const d of diagnostics || []) {
      const where = d.line ? ` (${d.line}:${d.column ?? "?"})` : "";
      const at = d.location;
      const index = at ? textIndex(at) : null;
      const link = at?.line ? gotoLink(at, { docIndex: index ?? 0 }) : null;
      items.push(h("li", { class: `sev-${d.severity || "warning"}` }, `${policy} ${d.fieldRef || ""}${where}: `,
        messageNode(d.message), link ? h("span", {}, " — ", link) : null));
    }
  }
  const plural = (n) => `${n} polic${n === 1 ? "y" : "ies"}`;
  const counts = `${plural(checked)} checked${unchecked ? `, ${plural(unchecked)} not checked` : ""}`;
  // Not all checked (a policy with errors, or a document that does not even load): say so, not "no type errors".
  const incomplete = unchecked > 0 || blocked;
  const unfinished = `Type check incomplete: fix the errors above first (${counts})`;
  if (!items.length) {
    return h("details", { class: "typecheck-clean muted", dataset: { testid: "typecheck" } },
      h("summary", {}, incomplete ? unfinished : `Type check: no type errors (${counts})`),
      jsonBlock("Type check report", typecheck));
  }
  // Only facts (a CRD rule's estimated cost, policies not checked): no finding of the checker to flag.
  const onlyInfo = items.every((item) => item.classList.contains("sev-info"));
  const title = !onlyInfo ? `Type check (${counts})` : incomplete ? unfinished
    : `Type check: no type errors; estimated costs (${counts})`;
  return h("section", { class: onlyInfo ? "typecheck typecheck-info" : "typecheck", dataset: { testid: "typecheck" } },
    h("h3", {}, title),
    h("ul", { class: "error-list" }, items), jsonBlock("Type check report", typecheck));
}
