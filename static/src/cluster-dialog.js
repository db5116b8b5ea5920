// "Load from cluster" (issue 37): count, then load policies, namespaces, params and chosen objects of the
// connected cluster into the project (POST /api/v1/projects/<id>/cluster/...); refresh what was loaded. The
// button shows only when GET /api/v1/cluster says a cluster is connected. Every text goes through textContent.
import { api, describeError } from "./api.js";
import { h, replaceChildren } from "./dom.js";

const API = "/api/v1/";

function selection(form) {
  const field = (name) => form.elements[name];
  const kinds = field("kinds").value.split(",").map((k) => k.trim()).filter(Boolean);
  const namespace = field("namespace").value.trim() || null;
  const labelSelector = field("selector").value.trim() || null;
  return {
    policies: field("policies").checked,
    crds: field("crds").checked,
    namespaces: field("namespaces").checked,
    params: field("params").checked,
    objects: kinds.map((kind) => ({ kind, namespace, labelSelector })),
  };
}

function errorList(errors) {
  if (!errors?.length) return null;
  return h("ul", { class: "cluster-errors" },
    ...errors.map((e) => h("li", { class: "error", dataset: { reason: e.reason } }, `${e.kind}: ${e.reason} — ${e.message}`)));
}

function countTable(answer) {
  const rows = answer.kinds.map((k) => h("tr", { class: k.overCap ? "over-cap" : "" },
    h("td", {}, k.kind), h("td", {}, k.namespace || "all"), h("td", {}, k.labelSelector || ""),
    h("td", { class: "num" }, `${k.exact ? "" : "more than "}${k.exact ? k.count : answer.maxObjects}`)));
  const over = answer.total > answer.maxObjects;
  return [
    h("table", { class: "cluster-count-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Kind"), h("th", {}, "Namespace"), h("th", {}, "Selector"), h("th", {}, "Objects"))),
      h("tbody", {}, ...rows)),
    h("p", { class: over ? "error" : "muted" },
      `${answer.total} objects in all; at most ${answer.maxObjects} per load${over ? ": narrow the selection" : ""}.`),
    errorList(answer.errors),
  ];
}

/** Wire the dialog; `token()` is the current edit token, `toast(text, kind)` reports, `onLoaded()` follows a
 *  load or refresh (the page evaluates). */
export async function installClusterDialog({ projectId, token, toast, onLoaded }) {
  const button = document.getElementById("btn-cluster");
  const dialog = document.getElementById("cluster-dialog");
  if (!button || !dialog || !projectId) return null;
  let status;
  try {
    status = await api("GET", `${API}cluster`);
  } catch {
    return null; // no cluster feature: the page works as before
  }
  if (!status?.enabled) return null;
  const form = document.getElementById("cluster-form");
  const out = document.getElementById("cluster-counts");
  document.getElementById("cluster-name").textContent = `(${status.cluster})`;
  button.hidden = false;
  button.addEventListener("click", () => dialog.showModal());
  const project = `${API}projects/${encodeURIComponent(projectId)}/cluster/`;
  const busy = (text) => replaceChildren(out, h("p", { class: "muted", role: "status" }, text));
  const failed = (error) => replaceChildren(out, h("p", { class: "error" }, describeError(error.error || error)));
  async function run(label, work) {
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    busy(label);
    try {
      await work();
    } catch (error) {
      failed(error);
    } finally {
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    }
  }
  document.getElementById("btn-cluster-count").addEventListener("click", () => run("Counting…", async () => {
    replaceChildren(out, ...countTable(await api("POST", `${API}cluster/count`, selection(form))));
  }));
  document.getElementById("btn-cluster-load").addEventListener("click", () => run("Loading…", async () => {
    const saved = await api("POST", `${project}load`, selection(form), { token: token() });
    const summary = `Loaded ${saved.added} new and ${saved.updated} already loaded object(s).`;
    replaceChildren(out, h("p", { class: "cluster-loaded", role: "status" }, summary), errorList(saved.errors));
    const unread = saved.errors.length ? ` ${saved.errors.length} kind(s) not read: ${saved.errors.map((e) => `${e.kind} (${e.reason})`).join(", ")}.` : "";
    toast(summary + unread, unread ? "error" : "info");
    onLoaded?.();
  }));
  document.getElementById("btn-cluster-refresh").addEventListener("click", () => run("Refreshing…", async () => {
    const saved = await api("POST", `${project}refresh`, {}, { token: token() });
    replaceChildren(out, h("p", { class: "cluster-loaded", role: "status" },
      `Read ${saved.refreshed} loaded object(s) again: ${saved.changed} changed.`), errorList(saved.errors));
    onLoaded?.();
  }));
  return status;
}

/** "Sample request from this object": a CREATE or UPDATE request of a loaded document, in one call. */
export async function sampleRequestFrom(projectId, token, documentId, operation) {
  return api("POST", `${API}projects/${encodeURIComponent(projectId)}/cluster/sample-request`,
    { operation, documentId: Number(documentId) }, { token });
}
