// The batch page (/p/<project>/batch): choose policies, upload or paste a dump, run it as a job, follow its
// progress, then the summary, charts, affected objects and one object's full result. The progress streams over
// the job's socket (ws/batch/<id>/, PROTOCOL.md "Batch jobs"; the token goes in `hello`, never in the URL);
// when the socket cannot connect or closes while the job still runs (a proxy without WebSockets, a dropped
// connection, a server restart), the page polls the job every 500 ms and tries the socket again after 1, 2, 4…
// up to 30 s. The bar's data-source says which ("socket" or "poll"). The job's edit
// token stays in this browser (localStorage), so a reload shows the last job again. Every text from the
// server goes in through textContent (dom.js), never as markup.

import { api, describeError } from "./api.js";
import { h, onSubmit, replaceChildren } from "./dom.js";
import { pageData } from "./page-data.js";
import { badge, requestCard } from "./results.js";
import { followTheme, renderCharts } from "./batch-charts.js";
import { JobFollower } from "./job-follow.js";

const data = pageData();
const JOBS = `${data.apiBase}batch/jobs`;
const STORE = `admission-playground:batch:${data.projectId}`;
const POLL_MS = 500;
const PAGE = 25;
const $ = (id) => document.getElementById(id);

let job = null; // {id, token}
let summary = null;
let offset = 0;

/** After this long with no chunk taken, the progress line asks whether a worker runs at all. */
const WORKER_HINT_SECONDS = 30;

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

function number(n) {
  return Number(n || 0).toLocaleString("en-US");
}

function duration(seconds) {
  if (seconds == null) return "";
  if (seconds < 1) return "under a second";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  return `${Math.round(seconds / 60)} min`;
}

function showProgress(state) {
  $("progress-box").hidden = false;
  const bar = $("batch-progress");
  bar.max = Math.max(1, state.total);
  bar.value = state.done;
  bar.dataset.status = state.status;
  const parts = [`${number(state.done)} / ${number(state.total)} objects`];
  if (state.done) parts.push(`${number(state.denied)} denied`);
  if (state.rate) parts.push(`${number(Math.round(state.rate))}/s`);
  if (state.status === "reading") {
    const source = state.sources?.[0];
    parts.splice(0, 1, readingText(source));
    if (source?.reading?.total) [bar.max, bar.value] = [source.reading.total, source.reading.read];
  }
  if (state.status === "queued") {
    parts.push(state.waitingSeconds >= WORKER_HINT_SECONDS
      ? `waiting for a worker for ${duration(state.waitingSeconds)}: is a batch worker running? (README, "Batch")`
      : "waiting for a worker");
  }
  if (state.status === "running" && state.etaSeconds != null) parts.push(`about ${duration(state.etaSeconds)} left`);
  if (state.status === "done") parts.push(`done in ${duration(state.elapsedSeconds)}`);
  if (state.status === "cancelled") parts.push("cancelled");
  if (state.status === "failed") parts.push("failed");
  $("progress-text").textContent = parts.join(" · ");
  $("progress-text").dataset.status = state.status;
  $("btn-cancel").hidden = !["reading", "queued", "running"].includes(state.status);
  $("job-error").hidden = !state.error;
  $("job-error").textContent = state.error || "";
  const warnings = state.warnings || [];
  $("job-warnings").hidden = !warnings.length;
  replaceChildren($("job-warnings"), warnings.slice(0, 10).map((w) =>
    h("li", {}, `Warning: ${w.source || "project"}${w.line ? ` line ${w.line}` : ""}: ${w.message}`)));
}

/** How far the cluster read is: "reading deployments.apps: 300 / 1,000" (the kinds read so far before it). */
function readingText(source) {
  const now = source?.reading;
  if (!now) return `reading ${source?.name || "the cluster"}…`;
  const done = (source.kinds || []).filter((k) => k.kind !== now.kind && k.read != null).length;
  const of = now.total != null ? ` / ${number(now.total)}` : "";
  return `reading ${now.kind}: ${number(now.read)}${of}` + (done ? ` (${done} kind${done === 1 ? "" : "s"} read)` : "");
}

const follower = new JobFollower({
  fetchState: () => call(""),
  show: (state, source) => {
    $("batch-progress").dataset.source = source;
    showProgress(state);
  },
  ended: (state) => (state.status === "done" ? showResults() : undefined),
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

function countCells(counts, keys) {
  return keys.map((key) => h("td", { class: "num" }, number(counts[key])));
}

function table(node, head, rows) {
  node.classList.add("batch-table");
  replaceChildren(node, h("thead", {}, h("tr", {}, head.map((title, i) => h("th", { scope: "col", class: i ? "num" : undefined }, title)))),
    h("tbody", {}, rows));
}

// Beside a policy counted once per object (its worst rule's outcome): its rules', webhooks' or bindings' own
// counts, when it has more than one.
function partRows(policy, outcomes) {
  for (const [key, word] of [["rules", "rule"], ["webhooks", "webhook"], ["bindings", "binding"]]) {
    const parts = Object.entries(policy[key] || {});
    if (parts.length > 1) {
      return parts.map(([part, counts]) => h("tr", { class: "batch-part" },
        h("th", { scope: "row" }, `${word} ${part}`), countCells(counts, outcomes)));
    }
  }
  return [];
}

function renderSummary() {
  const s = summary;
  replaceChildren($("totals"), [["objects", s.objects], ["allowed", s.allowed], ["denied", s.denied], ["warned", s.warned],
    ["audited", s.audited], ["errors", s.errors]].map(([label, value]) =>
    h("div", { class: `total total-${label}`, dataset: { testid: `total-${label}` } }, h("strong", {}, number(value)), h("span", {}, label))));
  const outcomes = ["admitted", "denied", "warned", "audited", "error"]; // a policy's outcomes, headed as the totals
  table($("policy-table"), ["Policy", ...outcomes.slice(0, -1), "errors"],
    Object.entries(s.policies).flatMap(([name, p]) => [h("tr", {}, h("th", { scope: "row" }, name), countCells(p, outcomes)),
      ...partRows(p, outcomes)]));
  const groups = ["objects", "denied", "warned", "audited", "errors"];
  table($("namespace-table"), ["Namespace", ...groups],
    Object.entries(s.namespaces).map(([name, n]) => h("tr", {}, h("th", { scope: "row" }, name || "(cluster-scoped)"), countCells(n, groups))));
  table($("kind-table"), ["Kind", ...groups],
    Object.entries(s.kinds).map(([name, n]) => h("tr", {}, h("th", { scope: "row" }, name || "(no kind)"), countCells(n, groups))));
  const select = $("affected-policy");
  replaceChildren(select, h("option", { value: "" }, "Any policy"), Object.keys(s.policies).map((name) => h("option", { value: name }, name)));
  renderCharts(s);
}

async function showResults() {
  const body = await call("/results");
  summary = body.summary;
  $("results-box").hidden = false;
  renderSummary();
  offset = 0;
  await loadAffected();
}

function label(row) {
  return `${row.kind} ${row.namespace ? `${row.namespace}/` : ""}${row.name}`;
}

function outcomeBadges(row) {
  const shown = new Set();
  const badges = [];
  for (const p of row.policies) {
    if (p.outcome === "admitted" || shown.has(`${p.policy}:${p.outcome}`)) continue;
    shown.add(`${p.policy}:${p.outcome}`);
    const kind = { denied: "denied", warned: "warned", audited: "warned", mutated: "mutated", error: "denied" }[p.outcome] || "none";
    badges.push(h("span", { class: "policy-outcome" }, badge(p.outcome, kind), " ", p.policy));
  }
  // A refusal no policy explains (an invalid object, a schema error) and warnings of no policy of ours.
  if (!row.allowed && !row.policies.some((p) => p.outcome === "denied")) badges.unshift(badge("denied", "denied"));
  if (row.warnings.length && !badges.length) badges.push(badge("warned", "warned"));
  return badges;
}

async function loadAffected() {
  const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
  const q = $("affected-search").value.trim();
  if (q) params.set("q", q);
  if ($("affected-outcome").value) params.set("outcome", $("affected-outcome").value);
  if ($("affected-policy").value) params.set("policy", $("affected-policy").value);
  let page;
  try {
    page = await call(`/objects?${params}`);
  } catch (error) {
    $("affected-count").textContent = describeError(error.error);
    return;
  }
  const last = Math.min(page.offset + page.items.length, page.count);
  $("affected-count").textContent = page.count
    ? `${number(page.count)} affected object${page.count === 1 ? "" : "s"}; showing ${number(page.offset + 1)}–${number(last)}`
    : "No affected object matches.";
  table($("affected-table"), ["#", "Object", "Outcome", "Message", ""], page.items.map((row) => h("tr", { dataset: { index: String(row.index) } },
    h("td", { class: "num" }, String(row.index)),
    h("td", { class: "object-label" }, label(row)),
    h("td", {}, outcomeBadges(row)),
    h("td", { class: "message" }, row.message || row.warnings[0] || row.policies.find((p) => p.message)?.message || ""),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", "aria-label": `Details of ${label(row)}`, onclick: () => drill(row) }, "Details")))));
  $("page-prev").disabled = offset === 0;
  $("page-next").disabled = last >= page.count;
}

async function drill(row) {
  const box = $("drilldown");
  box.hidden = false;
  $("drilldown-title").textContent = label(row);
  replaceChildren($("drilldown-body"), h("p", { class: "muted" }, "Evaluating…"));
  try {
    const detail = await call(`/objects/${row.index}`);
    replaceChildren($("drilldown-body"), requestCard({ id: row.index, name: `CREATE ${label(row)}`, result: detail.result }));
  } catch (error) {
    replaceChildren($("drilldown-body"), h("p", { class: "error-text" }, describeError(error.error)));
  }
  box.focus();
  box.scrollIntoView({ block: "start" });
}

async function download(fmt) {
  try {
    const response = await call(`/export/${fmt}`, { raw: true });
    const blob = await response.blob();
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "")?.[1] || `batch.${fmt}`;
    const link = h("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (error) {
    $("form-error").textContent = describeError(error.error);
  }
}

async function run(event) {
  event.preventDefault();
  $("form-error").textContent = "";
  const form = new FormData();
  form.append("project", data.projectId);
  const chosen = [...document.querySelectorAll("input[name=policies]:checked")].map((box) => box.value);
  if (!chosen.length) {
    $("form-error").textContent = "Choose at least one policy.";
    return;
  }
  for (const name of chosen) form.append("policies", name);
  if ($("batch-from-cluster")?.checked) {
    createJob({ project: data.projectId, policies: chosen, cluster: clusterSpec() }, "Reading the cluster…");
    return;
  }
  for (const file of $("batch-files").files) form.append("file", file, file.name);
  if ($("batch-text").value.trim()) form.append("text", $("batch-text").value);
  if (!$("batch-files").files.length && !$("batch-text").value.trim()) {
    $("form-error").textContent = "Upload a file or paste some objects first.";
    return;
  }
  createJob(form, "");
}

/** What to read from the connected cluster: the kinds given (else those the policies match), narrowed. */
function clusterSpec() {
  const kinds = $("batch-cluster-kinds").value.split(",").map((k) => k.trim()).filter(Boolean);
  return {
    kinds: kinds.length ? kinds : null,
    namespace: $("batch-cluster-namespace").value.trim() || null,
    labelSelector: $("batch-cluster-selector").value.trim() || null,
  };
}

async function createJob(body, reading) {
  $("btn-run").disabled = true;
  const status = $("batch-cluster-status");
  if (status) status.textContent = reading;
  try {
    const created = await api("POST", JOBS, body);
    job = { id: created.id, token: created.editToken };
    remember(job);
    summary = null;
    $("results-box").hidden = true;
    $("drilldown").hidden = true;
    showProgress(created);
    // On a phone the bar is below the form: bring it into view (a wide screen already shows it).
    $("progress-box").scrollIntoView({ block: "nearest", behavior: "smooth" });
    follow();
  } catch (error) {
    $("form-error").textContent = describeError(error.error);
  } finally {
    $("btn-run").disabled = false;
    if (status) status.textContent = "";
  }
}

async function offerCluster() {
  try {
    const cluster = await api("GET", "/api/v1/cluster");
    if (!cluster?.enabled) return;
    $("batch-cluster-name").textContent = `(${cluster.cluster})`;
    $("batch-cluster").hidden = false;
  } catch {
    // no cluster feature: uploads and pasted text as before
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
    loadAffected();
  }, 250);
}

onSubmit($("batch-form"), run);
$("btn-cancel").addEventListener("click", cancel);
$("affected-search").addEventListener("input", refilter);
$("affected-outcome").addEventListener("change", refilter);
$("affected-policy").addEventListener("change", refilter);
$("page-prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); loadAffected(); });
$("page-next").addEventListener("click", () => { offset += PAGE; loadAffected(); });
for (const button of document.querySelectorAll("[data-export]")) button.addEventListener("click", () => download(button.dataset.export));
followTheme(() => summary);

job = remembered();
if (job) follow();
offerCluster();
