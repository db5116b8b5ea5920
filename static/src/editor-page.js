// Entry of the editor pages: a live project (/p/<id>), a read-only snapshot (/s/<id>) or an example
// (/examples/<slug>). Snapshots and examples can be edited here as scratch (evaluated statelessly) and forked.

import { h, replaceChildren, debounce, copyText } from "./dom.js";
import { api, describeError } from "./api.js";
import { getToken, openProject } from "./tokens.js";
import { installThemeToggle } from "./theme.js";
import { pageData } from "./page-data.js";
import { Workspace } from "./workspace.js";
import { ResultsPane } from "./results-pane.js";
import { LiveProject } from "./live.js";

const $ = (id) => document.getElementById(id);
const data = pageData();
const API = data.apiBase;

function toast(text, kind = "info") {
  const box = $("toast");
  if (!box) return;
  const item = h("div", { class: `toast toast-${kind}`, role: "status" }, text);
  box.appendChild(item);
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 3500);
}

/** The Kubernetes version picker: the releases the engine simulates, newest first; `current` selected. */
function versionPicker(current, onChange) {
  const select = $("kubernetes-version");
  const versions = data.kubernetesVersions || [];
  if (!select || !versions.length) return null;
  if (!select.options.length) {
    for (const version of [...versions].reverse()) select.appendChild(h("option", { value: version }, version));
    select.addEventListener("change", () => onChange(select.value));
  }
  select.value = versions.includes(current) ? current : versions[versions.length - 1];
  return select;
}

const indicators = {
  connection(state) {
    const node = $("conn-state");
    if (!node) return;
    node.dataset.state = state;
    node.textContent = { open: "Live", connecting: "Connecting…", closed: "Reconnecting…", failed: "Not found",
      scratch: "Scratch (not saved)" }[state] || state;
  },
  saved(state, version) {
    const node = $("save-state");
    if (!node) return;
    node.dataset.state = state;
    node.textContent = { saved: `Saved · v${version ?? "—"}`, saving: "Saving…", unsaved: "Editing…",
      offline: "Offline: will save on reconnect", error: "Save failed", readonly: "Read-only" }[state] || state;
  },
  viewers(count) {
    const node = $("viewers");
    if (node) node.textContent = `${count} viewer${count === 1 ? "" : "s"}`;
  },
};

function banner(text) {
  const node = $("mode-banner");
  if (!node) return;
  node.hidden = !text;
  node.textContent = text || "";
}

// ---- sharing and forking ---------------------------------------------------------------------------------

function showShareLink(url) {
  const absolute = new URL(url, window.location.origin).href;
  const box = $("share-box");
  const input = $("share-url");
  if (box && input) {
    box.hidden = false;
    input.value = absolute;
    input.select();
  }
  const open = $("share-open");
  if (open) {
    open.href = absolute;
    open.hidden = false;
  }
  copyText(absolute).then((ok) => toast(ok ? "Permalink copied to the clipboard" : "Permalink ready: copy it from the box"));
}

async function forkContent(content, title) {
  const created = await api("POST", `${API}projects`, { title: `${title || "Untitled"} (fork)`, ...content });
  openProject(created);
}

function bindShortcuts(actions) {
  document.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    if (!mod) return;
    if (event.key === "Enter") {
      event.preventDefault();
      actions.run();
    } else if (event.key === "s" || event.key === "S") {
      event.preventDefault();
      actions.save();
    }
  });
}

function onClick(id, handler) {
  const node = $(id);
  if (node) node.addEventListener("click", (event) => {
    event.preventDefault();
    Promise.resolve(handler()).catch((error) => toast(describeError(error.error || { message: String(error) }), "error"));
  });
}

// ---- the live project --------------------------------------------------------------------------------------

function startProject() {
  const projectId = data.projectId;
  const token = getToken(projectId);
  const results = new ResultsPane($("results"));
  let live = null;
  const workspace = new Workspace({ documents: $("documents"), requests: $("requests") }, {
    onEdit: (target, id, text) => live.edit(target, id, text),
    onRename: (target, id, name) => live.send({ type: "rename", target, id, name }),
    onDelete: (target, id) => live.send({ type: "delete", target, id }),
    onExpected: (target, id, expected) => live.expected(target, id, expected),
    onRun: () => live.evaluateNow(),
    onSave: () => share(),
  }, { editable: false });
  let title = "";
  const titleInput = $("project-title");
  live = new LiveProject({ projectId, token, wsPath: data.wsPath, ui: {
    workspace, results, indicators,
    onState(message) {
      title = message.project.title || "";
      if (titleInput && document.activeElement !== titleInput) titleInput.value = title;
      document.title = `${title || "Untitled"} · Admission Playground`;
      const editable = Boolean(message.canEdit);
      workspace.setEditable(editable);
      if (titleInput) titleInput.readOnly = !editable;
      const picker = versionPicker(message.project.kubernetesVersion,
        (kubernetesVersion) => live.send({ type: "meta", kubernetesVersion }));
      if (picker) picker.disabled = !editable;
      for (const id of ["btn-add-document", "btn-add-request"]) if ($(id)) $(id).disabled = !editable;
      banner(editable ? "" : message.project.isExample
        ? "This example is read-only. Fork it to make your own copy."
        : "You are watching this project live. Fork it to edit your own copy.");
      if (!editable) indicators.saved("readonly");
    },
    onError(error) {
      toast(describeError(error), "error");
    },
  } });
  window.__playground = { live, workspace, results }; // for debugging and browser tests
  if (titleInput) {
    titleInput.addEventListener("change", () => live.send({ type: "meta", title: titleInput.value }));
  }
  async function share() {
    live.flushAll();
    const snapshot = await api("POST", `${API}projects/${encodeURIComponent(projectId)}/snapshots`, {}, { token });
    showShareLink(snapshot.url);
  }
  onClick("btn-evaluate", () => live.evaluateNow());
  onClick("btn-share", share);
  onClick("btn-fork", () => forkContent(workspace.content(), title));
  onClick("btn-add-document", () => live.send({ type: "create", target: "document", name: "policy.yaml", text: "" }));
  onClick("btn-add-request", () => live.send({ type: "create", target: "request", name: "request.yaml",
    text: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: example\n  namespace: default\n" }));
  bindShortcuts({ run: () => live.evaluateNow(), save: () => share().catch((e) => toast(describeError(e.error), "error")) });
  live.start();
}

// ---- snapshots and examples: scratch editing, stateless evaluation ---------------------------------------------

function startScratch(content, { fork, kindLabel }) {
  const results = new ResultsPane($("results"));
  let modified = false;
  const evaluate = debounce(async () => {
    const body = { ...workspace.content(), kubernetesVersion: $("kubernetes-version")?.value || undefined };
    results.evaluating(null);
    try {
      const evaluation = await api("POST", `${API}evaluate`, body);
      const order = workspace.requestOrder();
      results.showAll(evaluation, order);
      workspace.setDocumentErrors(evaluation.documents, evaluation.typecheck);
      (evaluation.requests || []).forEach((entry, index) => workspace.setRequestErrors(entry.id ?? order[index]?.id ?? index, entry.result));
    } catch (error) {
      results.error(describeError(error.error));
    }
  }, 300);
  const runNow = () => {
    evaluate();
    evaluate.flush();
  };
  const workspace = new Workspace({ documents: $("documents"), requests: $("requests") }, {
    onEdit: () => {
      modified = true;
      banner(`${kindLabel}: your changes are not saved. Fork to keep them.`);
      evaluate();
    },
    onExpected: () => {
      modified = true;
      evaluate();
    },
    onRename: () => (modified = true),
    onRun: runNow,
    onSave: () => toast("This page is already a permalink: copy the address bar"),
  }, { editable: true });
  const project = {
    documents: (content.documents || []).map((d, index) => ({ ...d, id: d.id ?? index })),
    requests: (content.requests || []).map((r, index) => ({ ...r, id: r.id ?? index })),
  };
  workspace.reconcile(project);
  for (const id of ["btn-add-document", "btn-add-request"]) if ($(id)) $(id).hidden = true;
  const titleInput = $("project-title");
  if (titleInput) {
    titleInput.value = content.title || "";
    titleInput.readOnly = true;
  }
  document.title = `${content.title || "Untitled"} · Admission Playground`;
  versionPicker(content.kubernetesVersion, runNow);
  indicators.connection("scratch");
  indicators.saved("readonly");
  banner(`${kindLabel}: read-only. Edit to try things out, fork to keep them.`);
  window.__playground = { workspace, results };
  onClick("btn-evaluate", runNow);
  onClick("btn-share", () => showShareLink(content.url || window.location.pathname));
  onClick("btn-fork", async () => (modified ? forkContent(workspace.content(), content.title) : openProject(await fork())));
  bindShortcuts({ run: runNow, save: () => showShareLink(content.url || window.location.pathname) });
  runNow();
}

async function main() {
  installThemeToggle();
  try {
    if (data.page === "editor") {
      startProject();
    } else if (data.page === "snapshot") {
      const content = data.snapshot || await api("GET", `${API}snapshots/${encodeURIComponent(data.snapshotId)}`);
      startScratch(content, { kindLabel: "Snapshot",
        fork: () => api("POST", `${API}snapshots/${encodeURIComponent(content.id || data.snapshotId)}/fork`, {}) });
    } else if (data.page === "example") {
      const content = data.example || await api("GET", `${API}examples/${encodeURIComponent(data.slug)}`);
      startScratch(content, { kindLabel: "Example",
        fork: () => api("POST", `${API}examples/${encodeURIComponent(data.slug)}/fork`, {}) });
    }
  } catch (error) {
    replaceChildren($("results"), h("p", { class: "error-text" }, describeError(error.error || { message: String(error) })));
  }
}

main();
