// Entry of the editor pages: a live project (/p/<id>), a read-only snapshot (/s/<id>) or an example
// (/examples/<slug>). Snapshots and examples are read-only: "Fork to edit" is the one way to change them.

import { h, replaceChildren, copyText, debounce } from "./dom.js";
import { api, describeError } from "./api.js";
import { adoptFragmentToken, displayName, editLink, getToken, openProject, remember, saveToken,
  setDisplayName } from "./tokens.js";
import { pageData } from "./page-data.js";
import { Workspace } from "./workspace.js";
import { ResultsPane } from "./results-pane.js";
import { LiveProject } from "./live.js";
import { forkTitle, installPaneSwitch, installTemplateMenu, humanTimes, uniqueName } from "./page-controls.js";
import { installFormatsMenu } from "./formats-menu.js";
import { installClusterDialog, sampleRequestFrom } from "./cluster-dialog.js";

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
      readonly: "Read-only" }[state] || state;
  },
  saved(state, version) {
    const node = $("save-state");
    if (!node) return;
    // Called on every keystroke and ack: an unchanged indicator is not rewritten (each write costs a layout).
    if (node.dataset.state !== state) node.dataset.state = state;
    setText(node, { saved: `Saved · v${version ?? "—"}`, saving: "Saving…", unsaved: "Editing…",
      offline: "Offline — your changes will be sent", "offline-clean": "Offline", error: "Save failed",
      readonly: "Read-only" }[state] || state);
  },
  viewers(count) {
    const node = $("viewers");
    if (node) node.textContent = `${count} viewer${count === 1 ? "" : "s"}`;
  },
};

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

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
  const snapshot = /^\/s\/([^/?#]+)$/.exec(new URL(absolute).pathname);
  const embedBox = $("embed-box");
  if (embedBox) {
    embedBox.hidden = !snapshot;
    if (snapshot) $("embed-snippet").value = embedSnippet(`${window.location.origin}/embed/${snapshot[1]}`, $("project-title")?.value);
  }
}

/** The iframe a page pastes (the same markup as GET /oembed's html). */
function embedSnippet(src, title) {
  const text = (value) => String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<iframe src="${text(src)}" title="${text(title || "Admission Playground")}" width="800" height="480" `
    + 'style="border:1px solid #d0d7de;border-radius:6px;max-width:100%" loading="lazy" '
    + 'sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"></iframe>';
}

async function copyEmbed() {
  const ok = await copyText($("embed-snippet").value);
  toast(ok ? "Embed snippet copied" : "Copy the snippet from the box");
}

async function forkContent(content, title) {
  const created = await api("POST", `${API}projects`, { title: forkTitle(title), ...content });
  openProject(created);
}

/** Page-wide Ctrl/⌘+Enter and Ctrl/⌘+S; an editor that already handled the key (defaultPrevented) wins. */
function bindShortcuts(actions) {
  document.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    if (!mod || event.defaultPrevented) return;
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
  adoptFragmentToken(projectId);
  const token = getToken(projectId);
  const results = new ResultsPane($("results"));
  let live = null;
  const workspace = new Workspace({ documents: $("documents"), requests: $("requests") }, {
    onEdit: (target, id) => live.edit(target, id),
    onSelection: (target, id) => live.selection(target, id),
    onRename: (target, id, name) => live.send({ type: "rename", target, id, name }),
    onDelete: (target, id) => live.send({ type: "delete", target, id }),
    onExpected: (target, id, expected) => live.expected(target, id, expected),
    onRun: () => live.evaluateNow(),
    onSave: () => share(),
    onSampleRequest: (id, operation) => sampleRequestFrom(projectId, live.token, id, operation)
      .then((made) => {
        toast(`Added the sample request "${made.name}".`);
        live.evaluateNow(); // a change made over REST reaches the room, but is not evaluated by itself
      })
      .catch((error) => toast(describeError(error.error), "error")),
  }, { editable: false, collab: true });
  let title = "";
  let focusNext = null;
  const titleInput = $("project-title");
  function showEditability(editable, isExample, picker) {
    workspace.setEditable(editable);
    if (titleInput) titleInput.readOnly = !editable;
    if (picker) picker.disabled = !editable;
    for (const id of ["btn-add-document", "btn-add-request", "btn-evaluate"]) {
      if ($(id)) {
        $(id).disabled = !editable;
        $(id).hidden = !editable;
      }
    }
    if ($("btn-fork")) $("btn-fork").textContent = editable ? "Fork" : "Fork to edit";
    banner(editable ? "" : isExample
      ? "This example is read-only. Fork it to make your own copy."
      : "You are watching this project live. Fork it to edit your own copy.");
    if (!editable) indicators.saved("readonly");
  }
  live = new LiveProject({ projectId, token, name: displayName(), wsPath: data.wsPath, ui: {
    workspace, results, indicators,
    onState(message) {
      title = message.project.title || "";
      if (message.canEdit) remember(projectId, { title, lastEdited: message.project.updated });
      if (titleInput && document.activeElement !== titleInput) titleInput.value = title;
      document.title = `${title || "Untitled"} · Admission Playground`;
      const picker = versionPicker(message.project.kubernetesVersion,
        (kubernetesVersion) => live.send({ type: "meta", kubernetesVersion }));
      // No canEdit: the connection's answer to our token is on its way; what is shown stays.
      if (typeof message.canEdit === "boolean") showEditability(message.canEdit, message.project.isExample, picker);
      if (focusNext) {
        const entry = [...workspace.items.values()].find((e) => e.target === focusNext.target && e.nameInput.value === focusNext.name);
        if (entry) {
          focusNext = null;
          entry.panel.scrollIntoView({ block: "nearest" });
          entry.editor.focus();
        }
      }
    },
    onError(error) {
      toast(describeError(error), "error");
    },
    onNotice({ message, target, text }) {
      const restore = h("button", { type: "button", class: "btn btn-small", onclick: () => {
        live.send({ type: "create", target, name: `recovered-${target}.yaml`, text });
        item.remove();
      } }, "Restore it");
      const item = h("div", { class: "toast toast-error", role: "alert" }, message, " ", restore);
      $("toast")?.appendChild(item);
    },
  } });
  setUpEditLink(projectId, () => getToken(projectId), live);
  // The fragment is read at load; an edit link pasted into this tab later only changes the hash.
  window.addEventListener("hashchange", () => live.useToken(adoptFragmentToken(projectId)));
  // Leaving the page would lose typing the server refused to save (it is only in this tab until mended):
  // the browser asks first. Ordinary unsent typing is not asked about, it is saved within a moment.
  window.addEventListener("beforeunload", (event) => {
    if (!live.refusedUnsent()) return;
    event.preventDefault();
    event.returnValue = "";
  });
  window.__playground = { live, workspace, results }; // for debugging and browser tests
  if (titleInput) {
    titleInput.addEventListener("change", () => live.send({ type: "meta", title: titleInput.value }));
  }
  async function share() {
    live.flushAll();
    const snapshot = await api("POST", `${API}projects/${encodeURIComponent(projectId)}/snapshots`, {}, { token: live.token });
    showShareLink(snapshot.url);
  }
  onClick("btn-evaluate", () => live.evaluateNow());
  onClick("btn-share", share);
  onClick("btn-copy-embed", copyEmbed);
  onClick("btn-fork", () => forkContent(workspace.content(), title));
  const existingNames = (target) => workspace.order[target].map((key) => workspace.items.get(key)?.nameInput.value);
  installTemplateMenu($("btn-add-document"), $("document-templates"), existingNames("document"), (template) => {
    focusNext = { target: "document", name: template.name };
    live.send({ type: "create", target: "document", name: template.name, text: template.text });
  }, () => existingNames("document"));
  onClick("btn-add-request", () => {
    const name = uniqueName("request.yaml", existingNames("request"));
    focusNext = { target: "request", name };
    live.send({ type: "create", target: "request", name,
      text: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: example\n  namespace: default\n" });
  });
  bindShortcuts({ run: () => live.evaluateNow(), save: () => share().catch((e) => toast(describeError(e.error), "error")) });
  installClusterDialog({ projectId, token: () => live.token, toast, onLoaded: () => live.evaluateNow() });
  live.start();
}

// ---- edit links, display name, revoking -------------------------------------------------------------------

function setUpEditLink(projectId, currentToken, live) {
  const nameInput = $("display-name");
  if (nameInput) {
    nameInput.value = displayName();
    nameInput.addEventListener("change", () => {
      const name = nameInput.value.trim().slice(0, 40);
      if (!name) return;
      setDisplayName(name);
      live.name = name;
      live.socket.send({ type: "hello", version: live.version, name });
    });
  }
  onClick("btn-edit-link", () => {
    const box = $("edit-link-box");
    if (!box) return;
    box.hidden = !box.hidden;
    const token = currentToken();
    $("edit-link-url").value = token ? editLink(projectId, token) : "You cannot edit this project: fork it first.";
    $("btn-copy-edit-link").disabled = !token;
    $("btn-revoke").disabled = !token;
  });
  onClick("btn-copy-edit-link", async () => {
    const ok = await copyText($("edit-link-url").value);
    toast(ok ? "Edit link copied: whoever opens it can edit this project" : "Copy the edit link from the box");
  });
  onClick("btn-revoke", async () => {
    if (!window.confirm("Revoke every edit link of this project? Other browsers and co-authors lose their edit "
      + "right; this browser gets a new link.")) return;
    const answer = await api("POST", `${API}projects/${encodeURIComponent(projectId)}/token`, {}, { token: currentToken() });
    saveToken(projectId, answer.editToken);
    live.token = answer.editToken;
    $("edit-link-url").value = editLink(projectId, answer.editToken);
    toast("Old edit links revoked; here is the new one");
  });
}

// ---- snapshots and examples: read-only, evaluated once, "Fork to edit" ----------------------------------------

function startReadOnly(content, { fork, kindLabel }) {
  const results = new ResultsPane($("results"));
  let tryingIt = false; // an embed's "try it": edits are evaluated by the stateless API, never saved
  const workspace = new Workspace({ documents: $("documents"), requests: $("requests") }, {
    onRun: () => evaluate(),
    onSave: () => showShareLink(content.url || window.location.pathname),
    onEdit: () => tryingIt && evaluateSoon(),
    onExpected: () => tryingIt && evaluateSoon(),
  }, { editable: false });
  let latest = 0; // answers can overtake each other: only the newest request's is shown
  async function evaluate() {
    const body = { ...workspace.content(),
      kubernetesVersion: $("kubernetes-version")?.value || content.kubernetesVersion || undefined };
    const mine = ++latest;
    results.evaluating(null);
    try {
      const evaluation = await api("POST", `${API}evaluate`, body);
      if (mine !== latest) return;
      const order = workspace.requestOrder();
      results.showAll(evaluation, order);
      workspace.setDocumentErrors(evaluation.documents, evaluation.typecheck);
      (evaluation.requests || []).forEach((entry, index) => workspace.setRequestErrors(entry.id ?? order[index]?.id ?? index, entry.result));
    } catch (error) {
      results.error(describeError(error.error));
    }
  }
  workspace.reconcile(snapshotItems(content));
  const titleInput = $("project-title");
  if (titleInput) {
    titleInput.value = content.title || "";
    titleInput.readOnly = true;
  }
  document.title = `${content.title || "Untitled"} · Admission Playground`;
  versionPicker(content.kubernetesVersion, evaluate);
  indicators.connection("readonly");
  if (kindLabel) banner(`${kindLabel} (read-only). Fork it to edit your own copy.`);
  window.__playground = { workspace, results };
  onClick("btn-share", () => showShareLink(content.url || window.location.pathname));
  onClick("btn-copy-embed", copyEmbed);
  onClick("btn-fork", async () => openProject(await fork()));
  bindShortcuts({ run: evaluate, save: () => showShareLink(content.url || window.location.pathname) });
  const evaluateSoon = debounce(evaluate, 120);
  const tryIt = $("btn-try");
  if (tryIt) tryIt.addEventListener("click", () => {
    tryingIt = !tryingIt;
    tryIt.setAttribute("aria-pressed", String(tryingIt));
    tryIt.textContent = tryingIt ? "Reset" : "Try it";
    if (!tryingIt) {  // back to the snapshot as it was taken
      workspace.reconcile(snapshotItems(content));
      evaluate();
    }
    workspace.setEditable(tryingIt);
    // A phone shows one pane: trying it means the YAML.
    const yamlPane = document.querySelector(".pane-switch [data-pane=editors]");
    if (tryingIt && yamlPane?.offsetParent) yamlPane.click();
    banner(tryingIt ? "Try it: edit the YAML, the results follow. Nothing is saved." : "");
    document.body.dataset.trying = String(tryingIt);
  });
  return evaluate();
}

const snapshotItems = (content) => ({
  documents: (content.documents || []).map((d, index) => ({ ...d, id: d.id ?? index })),
  requests: (content.requests || []).map((r, index) => ({ ...r, id: r.id ?? index })),
});

/** An embed tells the page around it how tall it is, so the frame can fit it (a script there may listen). */
function reportHeight() {
  if (window.parent === window) return;
  const send = () => window.parent.postMessage({ type: "admission-playground:height",
    height: document.documentElement.scrollHeight }, "*");
  new ResizeObserver(send).observe(document.body);
}

async function main() {
  installPaneSwitch();
  humanTimes();
  installFormatsMenu({ projectId: data.projectId || data.example?.projectId,
                       onError: (error) => toast(describeError(error.error || { message: String(error) }), "error") });
  try {
    if (data.page === "editor") {
      startProject();
    } else if (data.page === "snapshot") {
      const content = data.snapshot || await api("GET", `${API}snapshots/${encodeURIComponent(data.snapshotId)}`);
      startReadOnly(content, { kindLabel: "Snapshot",
        fork: () => api("POST", `${API}snapshots/${encodeURIComponent(content.id || data.snapshotId)}/fork`, {}) });
    } else if (data.page === "embed") {
      reportHeight();
      startReadOnly(data.snapshot, { kindLabel: "" });
    } else if (data.page === "example") {
      const content = data.example || await api("GET", `${API}examples/${encodeURIComponent(data.slug)}`);
      startReadOnly(content, { kindLabel: "Example",
        fork: () => api("POST", `${API}examples/${encodeURIComponent(data.slug)}/fork`, {}) });
    }
  } catch (error) {
    replaceChildren($("results"), h("p", { class: "error-text" }, describeError(error.error || { message: String(error) })));
  }
}

main();
