// Kyverno's mutating webhook and generate rules in a result card: per mutate rule its result, message, JSON
// patch and diff, the whole chain's diff and patched object; per generate rule the objects it would create,
// update or delete, as YAML, with the rule that made each. Text only (dom.js): engine output echoes user text.

import { h, jsonBlock, copyButton } from "./dom.js";
import { diffView, yamlText } from "./diff.js";
import { gotoLink, messageNode, textIndex } from "./locations.js";
import { badge, mutationStep, outcomeKind, section } from "./result-parts.js";

/** A collapsible YAML rendering of an object, with a copy button (the form users paste into kubectl). */
export function yamlBlock(title, value, { open = false, testid } = {}) {
  const text = yamlText(value);
  return h("div", { class: "json-block-row" },
    h("details", { class: "json-block", open, dataset: testid ? { testid } : undefined },
      h("summary", {}, title), h("pre", { class: "code" }, text)),
    copyButton(() => text));
}

function ruleLocation(location) {
  if (!location?.line) return null;
  const index = textIndex(location);
  return index === null ? null : h("span", {}, " (", gotoLink(location, { docIndex: index }), ")");
}

/** The `kyvernoMutation` part of a result, or null when no Kyverno mutate rule took part. */
export function kyvernoMutationView(result) {
  const mutation = result.kyvernoMutation;
  if (!mutation || !(mutation.mutations || []).length) return null;
  // What Kyverno received: the object after the MutatingAdmissionPolicies (or as sent).
  const original = mutation.object ?? result.request?.object ?? null;
  const final = mutation.patchedObject ?? original;
  let previous = original;
  const steps = mutation.mutations.map((m) => {
    const before = previous;
    if (m.object) previous = m.object;
    const changed = (m.patches || []).length;
    const step = mutationStep([`${m.policy} / ${m.rule} `, badge(m.result || "?", outcomeKind(m.result)),
      m.result === "pass" && !changed ? " no change" : ""], before, m.object,
    m.message ? h("p", { class: m.result === "error" ? "error-text" : "muted" }, messageNode(m.message), ruleLocation(m.location)) : null,
    changed ? jsonBlock(`JSON patch of rule ${m.rule} (${m.patches.length} operation${m.patches.length === 1 ? "" : "s"})`,
      m.patches, { open: true, testid: "kyverno-rule-patch" }) : null);
    step.open = Boolean(changed) || m.result === "error"; // what a rule did (or why it failed) is shown at once
    step.dataset.testid = "kyverno-rule";
    step.dataset.result = m.result || "";
    return step;
  });
  const ignored = mutation.ignoredPolicies || [];
  return section("Kyverno mutations", h("div", { dataset: { testid: "kyverno-mutation" } },
    h("h5", {}, "Whole chain"),
    diffView(original, final),
    ignored.length ? h("p", { class: "muted" }, `failurePolicy Ignore: the patches of ${ignored.join(", ")} are left out (a rule of theirs failed).`) : null,
    h("h5", {}, "Each rule"), steps,
    yamlBlock("Patched object", final, { testid: "kyverno-patched-object" }),
    jsonBlock("JSON patch (Kyverno's webhook response)", mutation.patch ?? [])), { open: true, testid: "kyverno-mutations" });
}

const MUTATING_POLICY_KINDS = new Set(["MutatingPolicy", "NamespacedMutatingPolicy"]);

/** Kyverno's MutatingPolicies in a result: per policy its verdict, then each mutation with its JSON patch and
 * the diff it made, the policy's whole diff and patched object; null when no MutatingPolicy ran a mutation. */
export function kyvernoMutatingPolicyView(kyverno) {
  const policies = (Array.isArray(kyverno) ? kyverno : []).filter((p) => MUTATING_POLICY_KINDS.has(p.kind)
    && ((p.mutations || []).length || (p.rules || []).some((r) => r.result === "error")));
  if (!policies.length) return null;
  const blocks = policies.map((policy) => {
    const name = `${policy.namespace ? `${policy.namespace}/` : ""}${policy.policy}`;
    let previous = policy.object ?? null;
    const steps = (policy.mutations || []).map((m) => {
      const before = previous;
      if (m.object) previous = m.object;
      const changed = (m.patch || []).length;
      const variant = m.autogen ? ` (autogen ${m.autogen})` : "";
      const step = mutationStep([`mutation ${m.index} · ${m.patchType}${variant} `,
        badge(m.error ? "error" : changed ? "mutated" : "no change", m.error ? "denied" : changed ? "mutated" : "none")],
      before, m.object,
      m.error ? h("p", { class: "error-text" }, messageNode(m.error), ruleLocation(m.location)) : null,
      changed ? jsonBlock(`JSON patch of mutation ${m.index} (${m.patch.length} operation${m.patch.length === 1 ? "" : "s"})`,
        m.patch, { open: true, testid: "mpol-mutation-patch" }) : null);
      step.open = Boolean(changed) || Boolean(m.error);
      step.dataset.testid = "mpol-mutation";
      return step;
    });
    const verdicts = (policy.rules || []).map((r) => h("p", {}, badge(r.result || "?", outcomeKind(r.result)), " ",
      h("span", { class: r.result === "error" ? "error-text" : "muted" }, messageNode(r.message || ""))));
    return h("div", { class: "mpol-policy", dataset: { testid: "mpol-policy" } },
      h("h5", {}, `${policy.kind} ${name}${policy.round ? " (reinvoked)" : ""}`), verdicts, steps,
      policy.patchedObject ? h("div", {},
        h("h5", {}, "Whole policy"), diffView(policy.object ?? null, policy.patchedObject),
        yamlBlock("Patched object", policy.patchedObject, { testid: "mpol-patched-object" }),
        jsonBlock("JSON patch of the policy", policy.patch ?? [])) : null);
  });
  return section("Kyverno MutatingPolicies", h("div", {}, blocks), { open: true, testid: "kyverno-mpol" });
}

function objectTitle(object) {
  const meta = object?.metadata || {};
  const name = meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : meta.name ?? "";
  return `${object?.kind ?? "object"} ${name}`;
}

const ACTION_WORDS = { create: "would create", update: "would update", delete: "would delete" };

function generatedObject(entry) {
  const role = entry.role === "source" ? " (clone source)" : "";
  const source = entry.source ? ` · cloned from ${entry.source.kind} ${entry.source.namespace ? `${entry.source.namespace}/` : ""}${entry.source.name}` : "";
  return h("div", { class: "generated-object", dataset: { testid: "generated-object", action: entry.action || "" } },
    h("p", {}, badge(entry.action || "?", outcomeKind(entry.action)), ` ${objectTitle(entry.object)}${role}`,
      h("span", { class: "muted" }, ` · ${ACTION_WORDS[entry.action] ?? entry.action} by rule ${entry.policy} / ${entry.rule}${source}`)),
    yamlBlock(`${objectTitle(entry.object)} (YAML)`, entry.object, { open: true }));
}

/** Every generate rule of the Kyverno policies in a result, or null when none applied. */
export function kyvernoGenerateView(kyverno) {
  const rules = (Array.isArray(kyverno) ? kyverno : []).flatMap((policy) =>
    (policy.generate || []).map((rule) => ({ policy, rule })));
  if (!rules.length) return null;
  const count = rules.reduce((n, { rule }) => n + (rule.objects || []).length, 0);
  const blocks = rules.map(({ policy, rule }) => h("div", { class: "generate-rule", dataset: { testid: "generate-rule" } },
    h("h5", {}, `${policy.namespace ? `${policy.namespace}/` : ""}${policy.policy} / ${rule.rule} `,
      badge(rule.result || "?", outcomeKind(rule.result))),
    rule.message ? h("p", { class: rule.result === "error" ? "error-text" : "muted" }, messageNode(rule.message), ruleLocation(rule.location)) : null,
    (rule.objects || []).length ? rule.objects.map(generatedObject)
      : h("p", { class: "muted" }, "Nothing to create, update or delete.")));
  return section(`Kyverno generate (${count} object${count === 1 ? "" : "s"})`, h("div", {}, blocks),
    { open: true, testid: "kyverno-generate" });
}

const DELETION_WORDS = { delete: "would delete", keep: "keeps", error: "cannot decide" };

/** One DeletingPolicy's headline: when it runs next and how many objects that run would delete. */
export function deletionHeadline(entry) {
  const name = `${entry.namespace ? `${entry.namespace}/` : ""}${entry.policy ?? ""}`;
  if (entry.error && !entry.nextRun) return `${name}: cannot run`;
  const count = entry.deletes ?? (entry.objects || []).filter((o) => o.result === "delete").length;
  const selected = (entry.objects || []).length;
  return `${name}: next run ${entry.nextRun ?? "unknown"} (schedule ${entry.schedule || "none"}) would delete ${count} of ${selected} selected object${selected === 1 ? "" : "s"}`;
}

function deletionObject(object) {
  const name = object.namespace ? `${object.namespace}/${object.name}` : object.name;
  return h("tr", { dataset: { testid: "deletion-object", result: object.result || "" } },
    h("td", {}, `${object.kind} ${name}`),
    h("td", {}, badge(object.result || "?", object.result === "delete" ? "fail" : object.result === "error" ? "error" : "pass")),
    h("td", {}, `${DELETION_WORDS[object.result] ?? object.result}: ${object.reason ?? ""}`));
}

/** The dry run of every Kyverno DeletingPolicy's next scheduled run (`deletions`), or null when none. */
export function kyvernoDeletionsView(deletions) {
  if (!Array.isArray(deletions) || !deletions.length) return null;
  const total = deletions.reduce((n, d) => n + (d.deletes || 0), 0);
  const blocks = deletions.map((entry) => h("div", { class: "generate-rule", dataset: { testid: "deleting-policy" } },
    h("h5", {}, deletionHeadline(entry)),
    entry.error ? h("p", { class: "error-text" }, messageNode(entry.error)) : null,
    (entry.objects || []).length
      ? h("table", { class: "tuples" },
        h("thead", {}, h("tr", {}, ["object", "next run", "why"].map((c) => h("th", {}, c)))),
        h("tbody", {}, entry.objects.map(deletionObject)))
      : entry.error ? null : h("p", { class: "muted" }, "No object of the project is selected by its matchConstraints.")));
  return section(`Kyverno deletions (${total} object${total === 1 ? "" : "s"} at the next runs)`, h("div", {}, blocks),
    { open: true, testid: "kyverno-deletions" });
}
