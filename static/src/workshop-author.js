// The authoring page: a set of exercises (task, starter, solution, checks with titles, hidden or with their
// expectation shown) composed into the set's YAML file by the server, which also runs the import's test
// (every solution passes all its checks, every starter fails one); then import it or download it.

import { api, ApiError } from "./api.js";
import { h, onSubmit, replaceChildren } from "./dom.js";
import { pageData } from "./page-data.js";
import { joinNamed, splitNamed } from "./workshop-room.js";

const data = pageData();
const $ = (id) => document.getElementById(id);
let lastYaml = null;
let counter = 0;

/** A text area of documents, each under a `# === name ===` line (edit the names there). */
function documentsArea(className, documents) {
  return h("textarea", { class: className, rows: 10, spellcheck: "false", value: joinNamed(documents || []) });
}

function field(label, control) { return h("label", { class: "ws-author-field" }, label, " ", control); }

function checkBox(check = {}) {
  const n = (counter += 1);
  const expected = check.expected || {};
  const fresh = check.expected === undefined;  // a new check: "denied" is the usual first check
  const outcome = expected.outcome || (expected.allowed === true ? "allowed" : expected.allowed === false ? "denied"
    : fresh ? "denied" : "");
  // Expectations the form has no field for (mutated fields, audit annotations, Kyverno rule results) are kept.
  // A check written as `allowed: true|false` keeps that form while its outcome is left as it was.
  const { allowed, outcome: _o, messageContains: _m, ...extra } = expected;
  const kept = expected.outcome === undefined && allowed !== undefined ? { from: outcome, allowed } : null;
  const box = h("fieldset", { class: "ws-author-check",
    dataset: { check: n, extra: JSON.stringify(extra), kept: kept ? JSON.stringify(kept) : "" } },
    h("legend", {}, "Check"),
    field("Name", h("input", { class: "check-name", required: true, value: check.name || `check ${n}` })),
    field("Title students see (what it tests, not the answer)", h("input", { class: "check-title", required: true,
      value: check.title || "", placeholder: "a Deployment with 7 replicas is denied" })),
    field("Request (YAML)", h("textarea", { class: "check-text", rows: 8, spellcheck: "false", value: check.text || "" })),
    field("Expected outcome", h("select", { class: "check-outcome" },
      [["allowed", "allowed"], ["denied", "denied"], ["warned", "warned"], ["", "any (only the other expectations)"]]
        .map(([o, label]) => h("option", { value: o, selected: o === outcome }, label)))),
    field("Message contains (optional)", h("input", { class: "check-message", value: expected.messageContains || "" })),
    h("label", { class: "ws-author-toggle" }, h("input", { type: "checkbox", class: "check-hidden", checked: Boolean(check.hidden) }),
      " hidden until the student submits"),
    h("label", { class: "ws-author-toggle" }, h("input", { type: "checkbox", class: "check-show", checked: Boolean(check.show_expected) }),
      " show students the expected message (it may give the answer away)"),
    h("button", { type: "button", class: "btn btn-quiet", onclick: () => box.remove() }, "Remove this check"));
  return box;
}

function exerciseBox(exercise = {}) {
  const n = (counter += 1);
  const checks = h("div", { class: "ws-author-checks" }, (exercise.checks || [{}]).map(checkBox));
  const box = h("fieldset", { class: "ws-author-exercise", dataset: { exercise: n } },
    h("legend", {}, "Exercise"),
    field("Slug", h("input", { class: "ex-slug", value: exercise.slug || `exercise-${n}` })),
    field("Title", h("input", { class: "ex-title", required: true, value: exercise.title || "" })),
    field("Task (Markdown)", h("textarea", { class: "ex-task", rows: 4, value: exercise.task || "" })),
    field("Hints (one per line, shown one at a time)", h("textarea", { class: "ex-hints", rows: 2, value: (exercise.hints || []).join("\n") })),
    field("Starter documents (YAML; each under a “# === name ===” line, or separated by ---)", documentsArea("ex-starter", exercise.starter)),
    field("Solution documents (the same form; only teachers see them)", documentsArea("ex-solution", exercise.documents)),
    checks,
    h("button", { type: "button", class: "btn", onclick: () => checks.append(checkBox()) }, "Add a check"),
    " ",
    h("button", { type: "button", class: "btn btn-quiet", onclick: () => box.remove() }, "Remove this exercise"));
  $("exercises").append(box);
  return box;
}

/** A check's expectation: the form's outcome and message, plus what the form has no field for. */
function expectedOf(check, outcome, message) {
  const kept = check.dataset.kept ? JSON.parse(check.dataset.kept) : null;
  const decision = kept && kept.from === outcome ? { allowed: kept.allowed } : outcome ? { outcome } : {};
  return { ...JSON.parse(check.dataset.extra || "{}"), ...decision, ...(message ? { messageContains: message } : {}) };
}

/** The form as the set file's fields (the server turns it into the YAML file). */
function readSet() {
  const value = (root, selector) => root.querySelector(selector).value;
  return {
    slug: $("set-slug").value.trim(),
    title: $("set-title").value.trim(),
    description: $("set-description").value.trim(),
    exercises: [...document.querySelectorAll(".ws-author-exercise")].map((box) => ({
      slug: value(box, ".ex-slug").trim(),
      title: value(box, ".ex-title").trim(),
      task: value(box, ".ex-task"),
      hints: value(box, ".ex-hints").split("\n").map((line) => line.trim()).filter(Boolean),
      starter: splitNamed(value(box, ".ex-starter")),
      documents: splitNamed(value(box, ".ex-solution")),
      checks: [...box.querySelectorAll(".ws-author-check")].map((check) => {
        const message = value(check, ".check-message");
        return {
          name: value(check, ".check-name").trim(),
          title: value(check, ".check-title").trim(),
          text: value(check, ".check-text"),
          hidden: check.querySelector(".check-hidden").checked,
          show_expected: check.querySelector(".check-show").checked,
          expected: expectedOf(check, value(check, ".check-outcome"), message),
        };
      }),
    })),
  };
}

function status(text, state) {
  $("author-status").textContent = text;
  $("author-status").dataset.state = state;
}

async function check() {
  $("import-set").disabled = true;
  try {
    const built = await api("POST", `${data.apiBase}workshops/sets/compose`, { set: readSet() });
    lastYaml = built.yaml;
    $("yaml-out").textContent = built.yaml;
    $("yaml-out").hidden = false;
    const link = $("download-yaml");
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([built.yaml], { type: "application/yaml" }));
    link.download = `${readSet().slug || "exercise-set"}.yaml`;
    link.hidden = false;
    $("import-set").disabled = !built.valid;
    if (built.valid) status("Valid: every solution passes its checks and every starter fails one.", "valid");
    else status(`Not valid yet: ${built.error.message}`, "invalid");
  } catch (error) {
    status(error instanceof ApiError ? error.message : String(error), "invalid");
  }
}

onSubmit($("set-form"), check);
$("add-exercise").addEventListener("click", () => exerciseBox().querySelector(".ex-title").focus());
$("import-set").addEventListener("click", async () => {
  try {
    const imported = await api("POST", `${data.apiBase}workshops/sets/import`, { yaml: lastYaml });
    replaceChildren($("author-status"), `Imported “${imported.title}” (${imported.exercises} exercises): `,
      h("a", { href: "/workshops" }, "open a room with it"));
    $("author-status").dataset.state = "imported";
    $("import-set").disabled = true;
  } catch (error) {
    status(error.message, "invalid");
  }
});
/** A project (its link or id) → an exercise: its documents as the solution and the starter (edit the starter
 *  to take the part to learn out), its sample requests as checks with their expected outcomes. */
$("load-project").addEventListener("click", async () => {
  const id = $("from-project").value.trim().replace(/^.*\/p\//, "").replace(/[/#?].*$/, "");
  if (!id) return;
  try {
    const project = await api("GET", `${data.apiBase}projects/${encodeURIComponent(id)}`);
    const documents = project.documents.map((d) => ({ name: d.name, text: d.text }));
    exerciseBox({
      title: project.title,
      task: project.description || "",
      documents,
      starter: documents,
      checks: project.requests.map((r) => ({ name: r.name, title: "", text: r.text, expected: r.expected || {} })),
    });
    status(`Added “${project.title}”: change the starter so that it fails a check, and give each check a title.`, "");
  } catch (error) {
    status(error.message, "invalid");
  }
});

/** Edit a copy of a stored set (a shipped one too): the form filled from its file, under a new slug. */
$("copy-set-load").addEventListener("click", async () => {
  const slug = $("copy-set").value;
  try {
    const file = await api("GET", `${data.apiBase}workshops/sets/${encodeURIComponent(slug)}/source`);
    $("set-slug").value = `${file.slug}-copy`;
    $("set-title").value = `${file.title} (copy)`;
    $("set-description").value = file.description;
    replaceChildren($("exercises"));
    file.exercises.forEach((exercise) => exerciseBox(exercise));
    status(`Copied “${file.title}”: ${file.exercises.length} exercises.`, "");
  } catch (error) {
    status(error.message, "invalid");
  }
});

exerciseBox();
