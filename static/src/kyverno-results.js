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
    rule.message ? h("p", { class: rule.result === "error" ? "error-text" : "muted" }, messageNode(rule.message)) : null,
    (rule.objects || []).length ? rule.objects.map(generatedObject)
      : h("p", { class: "muted" }, "Nothing to create, update or delete.")));
  return section(`Kyverno generate (${count} object${count === 1 ? "" : "s"})`, h("div", {}, blocks),
    { open: true, testid: "kyverno-generate" });
}
