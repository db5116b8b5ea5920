// The compare page (/p/<project>/impact): choose the policies before (base) and after (head) — a kept version of
// this project, the project now, or another project — and a corpus (a dump or an audit log); run the comparison
// as a job on the batch workers, follow its progress (the batch socket ws/batch/<id>/, polling while it is not
// open), then the totals, charts, tables, the changed requests with both answers and their diff, and every output
// of the report as a download. The job's edit token stays in this browser (localStorage), so a reload shows the
// last comparison again. Every text from the server goes in through textContent (dom.js), never as markup.

import { api, describeError } from "./api.js";
import { diffView, yamlText } from "./diff.js";
import { h, onSubmit, replaceChildren } from "./dom.js";
import { pageData } from "./page-data.js";
import { badge, requestCard } from "./results.js";
import { followTheme, renderCharts } from "./impact-charts.js";
import { JobFollower } from "./job-follow.js";

const data = pageData();
const JOBS = `${data.apiBase}impact/jobs`;
const STORE = `admission-playground:impact:${data.projectId}`;
const POLL_MS = 500;
const PAGE = 25;
const CATEGORY_WORDS = {
  newlyDenied: "newly denied", newlyAllowed: "newly allowed", newlyWarned: "newly warned",
  newErrors: "new error", messageChanged: "message changed", newlyAudited: "newly audited",
};
const $ = (id) => document.getElementById(id);

let job = null; // {id, token}
let summary = null;
let offset = 0;

function remembered() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) || "null");
    return saved && typeof saved.id === "string" && typeof saved.token === "string" ? saved : null;
  } catch {
    return null;
  }
}

function remember(value) {
  try {
    if (value) localStorage.setItem(STORE, JSON.stringify(value));
    else localStorage.removeItem(STORE);
  } catch {
    /* private mode: the job lasts for this page only */
  }
}

const call = (path, options = {}) => api("GET", `${JOBS}/${encodeURIComponent(job.id)}${path}`, undefined, { token: job.token, ...options });
const number = (n) => Number(n || 0).toLocaleString("en-US");

function duration(seconds) {
  if (seconds == null) return "";
  if (seconds < 1) return "under a second";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  return `${Math.round(seconds / 60)} min`;
}

// -- choosing the two sides -----------------------------------------------------------------------------------

/** A project id from an id or a link to its editor (…/p/<id>, …/p/<id>/impact). */
function projectId(text) {
  const value = text.trim();
  const match = /\/p\/([A-Za-z0-9_-]+)/.exec(value);
  return match ? match[1] : value;
}

function showOther(select) {
  select.closest("fieldset").querySelector(".other-project").hidden = select.value !== "other";
}

/** {project, version} of a side as chosen, or a message saying what is missing. */
function side(name) {
  const choice = $(`${name}-choice`).value;
  if (choice === "now") return { project: data.projectId, version: null };
  if (choice === "other") {
    const id = projectId($(`${name}-project`).value);
    return id ? { project: id, version: null } : `Give the other project's id or link (${name === "base" ? "before" : "after"}).`;
  }
  return { project: data.projectId, version: Number(choice) };
}

function compareWithVersion(number) {
  $("base-choice").value = String(number);
  $("head-choice").value = "now";
  for (const select of [$("base-choice"), $("head-choice")]) showOther(select);
  $("impact-form").scrollIntoView({ block: "start", behavior: "smooth" });
  $("impact-files").focus();
}

function compareWithOther() {
  $("base-choice").value = "now";
  $("head-choice").value = "other";
  for (const select of [$("base-choice"), $("head-choice")]) showOther(select);
  $("head-project").focus();
}

async function keepVersion() {
  $("keep-status").textContent = "Keeping…";
  try {
    await api("POST", `${data.apiBase}projects/${encodeURIComponent(data.projectId)}/snapshots`);
    window.location.reload(); // the history table and the choices are drawn by the server
  } catch (error) {
    $("keep-status").textContent = describeError(error.error);
  }
}

// -- the job's progress ---------------------------------------------------------------------------------------

function showProgress(state) {
  $("progress-box").hidden = false;
  if (state.sides) $("compared").textContent = `${state.sides.base.label} → ${state.sides.head.label}, over ${state.corpus === "auditLog" ? "an audit log" : "a dump"}`;
  const bar = $("impact-progress");
  bar.max = Math.max(1, state.total);
  bar.value = state.done;
  bar.dataset.status = state.status;
  const parts = [`${number(state.done)} / ${number(state.total)} requests`];
  if (state.done) parts.push(`${number(state.denied)} newly denied`);
  if (state.rate) parts.push(`${number(Math.round(state.rate))}/s`);
  if (state.status === "queued") parts.push(state.waitingSeconds >= 30 ? `waiting for a worker for ${duration(state.waitingSeconds)}: is a batch worker running?` : "waiting for a worker");
  if (state.status === "running" && state.etaSeconds != null) parts.push(`about ${duration(state.etaSeconds)} left`);
  if (["done", "cancelled", "failed"].includes(state.status)) parts.push(state.status === "done" ? `done in ${duration(state.elapsedSeconds)}` : state.status);
  $("progress-text").textContent = parts.join(" · ");
  $("progress-text").dataset.status = state.status;
  $("btn-cancel").hidden = !["queued", "running"].includes(state.status);
  $("job-error").hidden = !state.error;
  $("job-error").textContent = state.error || "";
  const warnings = state.warnings || [];
  $("job-warnings").hidden = !warnings.length;
  replaceChildren($("job-warnings"), warnings.slice(0, 10).map((w) =>
    h("li", {}, `Warning: ${w.source || "input"}${w.line ? ` line ${w.line}` : ""}: ${w.message}`)));
}

const follower = new JobFollower({
  fetchState: () => call(""),
  show: (state, source) => {
    if (source === "socket") $("impact-progress").dataset.source = "socket";
    else $("impact-progress").dataset.source ||= "poll";
    showProgress(state);
  },
  // The socket's last word has no sides: the final state comes over REST, then the results.
  ended: (state, source) => (source === "socket" ? follower.poll() : state.status === "done" ? showResults() : undefined),
  gone: () => {
    remember(null);
    job = null;
    $("progress-box").hidden = true;
  },
  unreachable: (error) => {
    $("progress-text").textContent = `Reconnecting… (${describeError(error.error)})`;
  },
  pollMs: POLL_MS,
});

const follow = () => follower.follow(job);

// -- the results ----------------------------------------------------------------------------------------------

// `numeric`: whether column i holds counts (right-aligned, as the batch page's tables).
function table(node, head, rows, numeric = (i) => i > 0) {
  node.classList.add("batch-table");
  replaceChildren(node, h("thead", {}, h("tr", {}, head.map((title, i) => h("th", { scope: "col", class: numeric(i) ? "num" : undefined }, title)))),
    h("tbody", {}, rows));
}

const cells = (counts, keys) => keys.map((key) => h("td", { class: "num" }, number(counts[key])));
const GROUP_COLUMNS = ["requests", "changed", "newlyDenied", "newlyAllowed", "newlyWarned", "newErrors", "messageChanged"];
const GROUP_HEADS = ["requests", "changed", "newly denied", "newly allowed", "newly warned", "new errors", "message changed"];

function renderSummary() {
  const s = summary;
  replaceChildren($("totals"), [["requests", s.requests], ["changed", s.changed], ["newlyDenied", s.newlyDenied], ["newlyAllowed", s.newlyAllowed],
    ["newlyWarned", s.newlyWarned], ["newErrors", s.newErrors], ["messageChanged", s.messageChanged]].map(([key, value]) =>
    h("div", { class: `total total-${key === "newlyDenied" ? "denied" : key === "newlyAllowed" ? "allowed" : key === "newlyWarned" ? "warned" : key}`, dataset: { testid: `total-${key}` } },
      h("strong", {}, number(value)), h("span", {}, key === "newErrors" ? "new errors" : CATEGORY_WORDS[key] || key))));
  const policyColumns = GROUP_COLUMNS.slice(1);
  table($("policy-table"), ["Policy", ...GROUP_HEADS.slice(1), "denied before", "denied after"],
    Object.entries(s.policies || {}).map(([name, p]) => h("tr", {}, h("th", { scope: "row" }, name), cells(p, policyColumns),
      h("td", { class: "num" }, number(p.base?.denied)), h("td", { class: "num" }, number(p.head?.denied)))));
  table($("namespace-table"), ["Namespace", ...GROUP_HEADS.slice(0, 4)],
    Object.entries(s.namespaces || {}).map(([name, n]) => h("tr", {}, h("th", { scope: "row" }, name || "(cluster-scoped)"), cells(n, GROUP_COLUMNS.slice(0, 4)))));
  table($("kind-table"), ["Kind", ...GROUP_HEADS.slice(0, 4)],
    Object.entries(s.kinds || {}).map(([name, n]) => h("tr", {}, h("th", { scope: "row" }, name || "(no kind)"), cells(n, GROUP_COLUMNS.slice(0, 4)))));
  table($("user-table"), ["User", ...GROUP_HEADS.slice(0, 4)],
    Object.entries(s.users || {}).map(([name, n]) => h("tr", {}, h("th", { scope: "row" }, name || "(no user)"), cells(n, GROUP_COLUMNS.slice(0, 4)))));
  replaceChildren($("changes-policy"), h("option", { value: "" }, "Any policy"), Object.keys(s.policies || {}).map((name) => h("option", { value: name }, name)));
  renderCharts(s);
}

async function showResults() {
  let body;
  try {
    body = await call("/report");
  } catch (error) {
    $("job-error").hidden = false;
    $("job-error").textContent = describeError(error.error);
    return;
  }
  summary = body.summary;
  $("results-box").hidden = false;
  renderSummary();
  offset = 0;
  await loadChanges();
}

function requestLabel(change) {
  const target = `${change.kind} ${change.namespace ? `${change.namespace}/` : ""}${change.name}`;
  return `${change.operation}${change.subResource ? ` ${change.subResource}` : ""} ${target}`;
}

function answer(sideResult) {
  return h("span", {}, badge(sideResult.allowed ? "allowed" : "denied", sideResult.allowed ? "allowed" : "denied"),
    sideResult.message ? ` ${sideResult.message}` : sideResult.warnings.length ? ` warning: ${sideResult.warnings[0]}` : "");
}

async function loadChanges() {
  const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
  const q = $("changes-search").value.trim();
  if (q) params.set("q", q);
  if ($("changes-category").value) params.set("category", $("changes-category").value);
  if ($("changes-policy").value) params.set("policy", $("changes-policy").value);
  let page;
  try {
    page = await call(`/changes?${params}`);
  } catch (error) {
    $("changes-count").textContent = describeError(error.error);
    return;
  }
  const last = Math.min(page.offset + page.items.length, page.count);
  $("changes-count").textContent = page.count
    ? `${number(page.count)} changed request${page.count === 1 ? "" : "s"}; showing ${number(page.offset + 1)}–${number(last)}`
    : "No changed request matches.";
  // data-label: the column's name, shown beside each cell where a phone stacks a row's cells (impact.css)
  const cell = (label, attributes, ...children) => h("td", { ...attributes, dataset: { label } }, ...children);
  table($("changes-table"), ["#", "Request", "User", "Before", "After", "Change", ""], page.items.map((change) => h("tr", { dataset: { index: String(change.index) } },
    cell("#", { class: "num" }, change.line ? `${change.index} (line ${change.line})` : String(change.index)),
    cell("Request", {}, requestLabel(change)),
    cell("User", {}, change.user || ""),
    cell("Before", { class: "answer" }, answer(change.base)),
    cell("After", { class: "answer" }, answer(change.head)),
    cell("Change", {}, change.categories.map((c) => h("span", { class: "category" }, badge(CATEGORY_WORDS[c] || c, c === "newlyDenied" || c === "newErrors" ? "denied" : c === "newlyAllowed" ? "allowed" : "warned")))),
    cell("", {}, h("button", { type: "button", class: "btn btn-small", "aria-label": `Details of request ${change.index}: ${requestLabel(change)}`, onclick: () => detail(change) }, "Details")))),
  (i) => i === 0);
  $("page-prev").disabled = offset === 0;
  $("page-next").disabled = last >= page.count;
}

function answerCard(title, sideResult) {
  const policies = sideResult.policies.filter((p) => p.outcome !== "admitted" || p.message);
  return h("div", { class: "answer-card", dataset: { testid: `answer-${title === "Before" ? "base" : "head"}` } },
    h("h4", {}, title, " ", badge(sideResult.allowed ? "allowed" : "denied", sideResult.allowed ? "allowed" : "denied")),
    sideResult.message ? h("p", {}, sideResult.message) : null,
    sideResult.warnings.length ? h("ul", {}, sideResult.warnings.map((w) => h("li", {}, `Warning: ${w}`))) : null,
    policies.length ? h("ul", {}, policies.map((p) => h("li", {}, `${p.policy}: ${p.outcome}${p.message ? ` — ${p.message}` : ""}`))) : h("p", { class: "muted" }, "No policy objected."));
}

async function detail(change) {
  const box = $("detail");
  box.hidden = false;
  $("detail-title").textContent = `Request ${change.index}: ${requestLabel(change)}`;
  replaceChildren($("detail-body"), h("p", { class: "muted" }, "Loading…"));
  try {
    const found = await call(`/changes/${change.index}`);
    const { base, head } = found.change || change;
    const notes = (found.change || change).notes || [];
    replaceChildren($("detail-body"),
      notes.length ? h("ul", { class: "notes" }, notes.map((note) => h("li", {}, `Replay note: ${note}`))) : null,
      h("div", { class: "answers" }, answerCard("Before", base), answerCard("After", head)),
      h("h4", {}, "What changed (before → after)"),
      h("div", { class: "detail-block", dataset: { testid: "answer-diff" } }, diffView(base, head)),
      h("details", { class: "result-section" }, h("summary", {}, "The request replayed"),
        h("pre", { class: "code detail-block" }, yamlText(found.request))),
      h("h4", {}, "Both results in full"),
      h("div", { class: "answers", id: "full-results" }, h("p", { class: "muted" }, "Evaluating…")));
    fullResults(change);
  } catch (error) {
    replaceChildren($("detail-body"), h("p", { class: "error-text" }, describeError(error.error)));
  }
  box.focus();
  box.scrollIntoView({ block: "start" });
}

/** Both sides' whole answers (traces, AdmissionReview), recomputed on demand by the server. */
async function fullResults(change) {
  const label = requestLabel(change);
  try {
    const full = await call(`/changes/${change.index}/results`);
    if ($("full-results")) {
      replaceChildren($("full-results"), requestCard({ id: `base-${change.index}`, name: `Before: ${label}`, result: full.base }),
        requestCard({ id: `head-${change.index}`, name: `After: ${label}`, result: full.head }));
    }
  } catch (error) {
    if ($("full-results")) replaceChildren($("full-results"), h("p", { class: "error-text" }, describeError(error.error)));
  }
}

async function download(fmt) {
  try {
    const response = await call(`/export/${fmt}`, { raw: true });
    const blob = await response.blob();
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "")?.[1] || `impact.${fmt}`;
    const link = h("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (error) {
    $("form-error").textContent = describeError(error.error);
  }
}

// -- starting and stopping ------------------------------------------------------------------------------------

async function run(event) {
  event.preventDefault();
  $("form-error").textContent = "";
  const base = side("base");
  const head = side("head");
  const problem = [base, head].find((s) => typeof s === "string");
  if (problem) {
    $("form-error").textContent = problem;
    return;
  }
  if (!$("impact-files").files.length && !$("impact-text").value.trim()) {
    $("form-error").textContent = "Upload a dump or an audit log, or paste one, first.";
    return;
  }
  const form = new FormData();
  form.append("base", base.project);
  if (base.version != null) form.append("baseVersion", String(base.version));
  form.append("head", head.project);
  if (head.version != null) form.append("headVersion", String(head.version));
  if ($("impact-corpus").value) form.append("corpus", $("impact-corpus").value);
  for (const file of $("impact-files").files) form.append("file", file, file.name);
  if ($("impact-text").value.trim()) form.append("text", $("impact-text").value);
  $("btn-compare").disabled = true;
  try {
    const created = await api("POST", JOBS, form);
    job = { id: created.id, token: created.editToken };
    remember(job);
    summary = null;
    $("results-box").hidden = true;
    $("detail").hidden = true;
    delete $("impact-progress").dataset.source;
    showProgress(created);
    $("progress-box").scrollIntoView({ block: "nearest", behavior: "smooth" });
    follow();
  } catch (error) {
    $("form-error").textContent = describeError(error.error);
  } finally {
    $("btn-compare").disabled = false;
  }
}

async function cancel() {
  if (!job) return;
  try {
    showProgress(await api("POST", `${JOBS}/${encodeURIComponent(job.id)}/cancel`, undefined, { token: job.token }));
  } catch (error) {
    $("job-error").hidden = false;
    $("job-error").textContent = describeError(error.error);
  }
}

let searchTimer = null;
function refilter() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    offset = 0;
    loadChanges();
  }, 250);
}

onSubmit($("impact-form"), run);
for (const select of [$("base-choice"), $("head-choice")]) select.addEventListener("change", () => showOther(select));
for (const button of document.querySelectorAll("[data-compare-version]")) button.addEventListener("click", () => compareWithVersion(button.dataset.compareVersion));
$("btn-other").addEventListener("click", compareWithOther);
$("btn-keep").addEventListener("click", keepVersion);
$("btn-cancel").addEventListener("click", cancel);
$("changes-search").addEventListener("input", refilter);
$("changes-category").addEventListener("change", refilter);
$("changes-policy").addEventListener("change", refilter);
$("page-prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); loadChanges(); });
$("page-next").addEventListener("click", () => { offset += PAGE; loadChanges(); });
for (const button of document.querySelectorAll("[data-export]")) button.addEventListener("click", () => download(button.dataset.export));
followTheme(() => summary);

job = remembered();
if (job) follow();
