// The left column: one panel per document and per sample request, each with a CodeMirror editor, a name,
// and (for requests) the expected outcome. It reconciles with the server's project state by item id.

import { h, replaceChildren } from "./dom.js";
import { createEditor } from "./editors.js";
import { typecheckDiagnostics } from "./field-locator.js";
import { GOTO_EVENT } from "./locations.js";

const OUTCOMES = [["", "no expectation"], ["allowed", "allowed"], ["denied", "denied"], ["warned", "warned"]];

export const itemKey = (target, id) => `${target}:${id}`;

function kindOf(text) {
  const kinds = [...text.matchAll(/^kind:\s*["']?([A-Za-z]+)/gm)].map((m) => m[1]);
  return kinds.length ? [...new Set(kinds)].join(", ") : "";
}

/** Put `panels` in `host` in this order, moving only those out of place: moving a node blurs what has focus
 * inside it, so re-appending every panel on each project state sent the keystrokes of whoever was typing
 * nowhere. */
function placeInOrder(host, panels) {
  panels.forEach((panel, index) => {
    const there = host.children[index];
    if (there !== panel) host.insertBefore(panel, there ?? null);
  });
}

export class Workspace {
  /**
   * hosts: {documents: Element, requests: Element}
   * hooks: {onEdit(target, id, text), onRename(target, id, name), onDelete(target, id),
   *         onExpected(target, id, expected), onRun(), onSave(), onSelection(target, id)}
   * collab: texts are co-edited (the server's text is never forced over the editor's; collab.js syncs it).
   */
  constructor(hosts, hooks, { editable = true, collab = false } = {}) {
    this.hosts = hosts;
    this.hooks = hooks;
    this.editable = editable;
    this.collab = collab;
    this.items = new Map();
    this.order = { document: [], request: [] };
    // A "line L:C" link anywhere on the page (results, type checks) moves the cursor to that document.
    document.addEventListener(GOTO_EVENT, (event) => this.goTo(event.detail));
  }

  /** Show {docId | docIndex, line, column} in its document's editor. */
  goTo({ docId, docIndex, line, column }) {
    const key = docId !== undefined && docId !== null ? itemKey("document", docId) : this.order.document[docIndex];
    const entry = key && this.items.get(key);
    if (!entry) return false;
    entry.panel.scrollIntoView?.({ block: "nearest" });
    entry.editor.goTo(line, column);
    return true;
  }

  /** Build, update and remove panels to match `project` (documents/requests); `keep` keys are left as typed. */
  reconcile(project, keep = new Set()) {
    for (const target of ["document", "request"]) {
      const list = project[target === "document" ? "documents" : "requests"] || [];
      const seen = new Set();
      list.forEach((item, index) => {
        const id = item.id ?? index;
        const key = itemKey(target, id);
        seen.add(key);
        const existing = this.items.get(key);
        if (!existing) this.items.set(key, this.panel(target, id, item));
        else this.update(existing, item, keep.has(key));
      });
      for (const [key, entry] of this.items) {
        if (entry.target === target && !seen.has(key)) {
          entry.editor.destroy();
          entry.panel.remove();
          this.items.delete(key);
        }
      }
      this.order[target] = list.map((item, index) => itemKey(target, item.id ?? index));
      placeInOrder(this.hosts[target === "document" ? "documents" : "requests"],
        this.order[target].map((key) => this.items.get(key).panel));
    }
  }

  update(entry, item, keepText) {
    if (!keepText && !this.collab && typeof item.text === "string") entry.editor.setText(item.text);
    if (typeof item.name === "string" && document.activeElement !== entry.nameInput) entry.nameInput.value = item.name;
    if (entry.target === "request" && item.expected !== undefined) this.showExpected(entry, item.expected);
    if (item.origin) this.showOrigin(entry, item.origin);
    entry.kindLabel.textContent = kindOf(entry.editor.getText());
  }

  /** A document loaded from a cluster: where from (hover), and "→ request" actions (issue 37). */
  showOrigin(entry, origin) {
    const o = origin;
    const where = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
    const badge = h("span", { class: "origin-label", title: `Loaded from cluster ${o.cluster} at ${o.loadedAt} ` +
      `(resourceVersion ${o.resourceVersion}): ${where}` }, "cluster");
    const action = (operation) => h("button", { type: "button", class: "btn btn-small btn-quiet origin-request",
      dataset: { operation }, title: `A ${operation} sample request of this object`, hidden: !this.editable,
      onclick: () => this.hooks.onSampleRequest?.(entry.id, operation) }, `${operation} request`);
    replaceChildren(entry.originHost, badge, ...(this.hooks.onSampleRequest ? [action("CREATE"), action("UPDATE")] : []));
  }

  panel(target, id, item) {
    const nameInput = h("input", { class: "item-name", value: item.name || "", "aria-label": `${target} name`,
      readOnly: !this.editable, spellcheck: "false" });
    const kindLabel = h("span", { class: "kind-label" }, kindOf(item.text || ""));
    const deleteButton = h("button", { type: "button", class: "btn btn-small btn-quiet item-delete", title: `Delete this ${target}`,
      disabled: !this.editable, hidden: !this.editable }, "Delete");
    const editorHost = h("div", { class: "editor-host" });
    const originHost = h("span", { class: "origin-host" });
    const panel = h("section", { class: `panel panel-${target}`, dataset: { target, id: String(id) } },
      h("header", { class: "panel-head" }, nameInput, kindLabel, originHost, deleteButton), editorHost);
    const entry = { target, id, panel, nameInput, kindLabel, originHost, expected: item.expected ?? null };
    if (item.origin) this.showOrigin(entry, item.origin);
    entry.editor = createEditor(editorHost, {
      text: item.text || "",
      role: target,
      readOnly: !this.editable,
      label: `${target} ${item.name || id}`,
      collab: this.collab ? { version: item.collabVersion ?? 0 } : undefined,
      onSelection: () => this.hooks.onSelection?.(target, entry.id),
      onChange: (text) => {
        kindLabel.textContent = kindOf(text);
        this.hooks.onEdit?.(target, entry.id, text);
      },
      onRun: () => this.hooks.onRun?.(),
      onSave: () => this.hooks.onSave?.(),
    });
    nameInput.addEventListener("change", () => {
      if (nameInput.value.trim()) this.hooks.onRename?.(target, entry.id, nameInput.value.trim());
    });
    deleteButton.addEventListener("click", () => {
      if (window.confirm(`Delete ${target} "${nameInput.value}"?`)) this.hooks.onDelete?.(target, entry.id);
    });
    if (target === "request") this.expectedControls(entry, panel);
    return entry;
  }

  expectedControls(entry, panel) {
    const select = h("select", { class: "expected-outcome", "aria-label": "expected outcome", disabled: !this.editable },
      OUTCOMES.map(([value, label]) => h("option", { value }, label)));
    const contains = h("input", { class: "expected-message", placeholder: "message contains…",
      "aria-label": "expected message contains", readOnly: !this.editable });
    const changed = () => {
      const expected = {};
      if (select.value) expected.outcome = select.value;
      if (contains.value) expected.messageContains = contains.value;
      entry.expected = Object.keys(expected).length ? expected : null;
      this.hooks.onExpected?.(entry.target, entry.id, entry.expected);
    };
    select.addEventListener("change", changed);
    contains.addEventListener("change", changed);
    entry.expectedSelect = select;
    entry.expectedInput = contains;
    panel.appendChild(h("footer", { class: "panel-foot", hidden: !this.editable }, h("label", {}, "Expect ", select), contains));
    this.showExpected(entry, entry.expected);
  }

  showExpected(entry, expected) {
    entry.expected = expected;
    const outcome = expected?.outcome || (expected?.allowed === true ? "allowed" : expected?.allowed === false ? "denied" : "");
    entry.expectedSelect.value = outcome;
    if (document.activeElement !== entry.expectedInput) entry.expectedInput.value = expected?.messageContains || "";
  }

  setEditable(editable) {
    this.editable = editable;
    for (const entry of this.items.values()) {
      entry.editor.setReadOnly(!editable);
      entry.nameInput.readOnly = !editable;
      const deleteButton = entry.panel.querySelector(".panel-head .item-delete");
      if (deleteButton) {
        deleteButton.disabled = !editable;
        deleteButton.hidden = !editable; // read-only: no control that cannot do anything
      }
      const foot = entry.panel.querySelector(".panel-foot");
      if (foot) foot.hidden = !editable;
      for (const button of entry.panel.querySelectorAll(".origin-request")) button.hidden = !editable;
      if (entry.expectedSelect) {
        entry.expectedSelect.disabled = !editable;
        entry.expectedInput.readOnly = !editable;
      }
    }
  }

  get(target, id) {
    return this.items.get(itemKey(target, id));
  }

  text(target, id) {
    return this.get(target, id)?.editor.getText() ?? "";
  }

  /** The engine's diagnostics for each document: [{id, errors}], plus the type checker's, placed by fieldRef. */
  setDocumentErrors(documents, typecheck) {
    if (documents !== undefined) this.documentErrors = documents;
    if (typecheck !== undefined) this.typecheck = typecheck;
    const byId = new Map((this.documentErrors || []).map((d, index) => [String(d.id ?? index), d.errors || []]));
    const docs = [...this.items.values()].filter((e) => e.target === "document");
    const typed = typecheckDiagnostics(this.typecheck, docs.map((e) => ({ id: e.id, text: e.editor.getText() })),
      this.order.document.map((key) => String(this.items.get(key)?.id)));
    for (const entry of docs) {
      const key = String(entry.id);
      entry.editor.setServerErrors([...(byId.get(key) || []), ...(typed.get(key) || [])]);
    }
  }

  /** The engine's errors about one sample request's own text (those with a line) as inline diagnostics. */
  setRequestErrors(id, result) {
    const entry = this.get("request", id);
    if (!entry) return;
    const own = result?.requestErrors || (result?.errors || []).filter((e) => /request/.test(e.source || "") && !Number.isInteger(e.document));
    const errors = own.filter((e) => e.line);
    entry.editor.setServerErrors(errors);
  }

  /** The content as the API takes it: {documents: [{name, text}], requests: [{name, text, expected}]}. */
  content() {
    const pick = (target) => this.order[target].map((key) => this.items.get(key)).map((entry) => ({
      name: entry.nameInput.value || entry.target,
      text: entry.editor.getText(),
      ...(entry.target === "request" ? { expected: entry.expected ?? null } : {}),
    }));
    return { documents: pick("document"), requests: pick("request") };
  }

  requestOrder() {
    return this.order.request.map((key) => this.items.get(key)).map((entry) => ({ id: entry.id, name: entry.nameInput.value }));
  }
}
