// The live project: edits go over the WebSocket as typed (debounced), acks bump the version, results
// stream back with no click. Reconnects resync by version and resend whatever was typed while offline.

import { debounce } from "./dom.js";
import { ReconnectingSocket } from "./socket.js";
import { itemKey } from "./workspace.js";

const EDIT_DELAY_MS = 150;

export class LiveProject {
  /** ui: {workspace, results, indicators: {connection(state), saved(state, version), viewers(n)}, onState(msg), onError(e)} */
  constructor({ projectId, token, wsPath, ui }) {
    this.projectId = projectId;
    this.ui = ui;
    this.version = null;
    this.seq = 0;
    this.pending = new Map(); // clientSeq → {key, text}
    this.dirty = new Map(); // item key → {target, id, text, expected?} typed but not acked
    this.senders = new Map(); // item key → debounced sender
    this.canEdit = false;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const path = wsPath || `/ws/projects/${encodeURIComponent(projectId)}/`;
    const query = token ? `?token=${encodeURIComponent(token)}` : "";
    this.socket = new ReconnectingSocket(`${scheme}//${window.location.host}${path}${query}`, {
      onOpen: () => this.socket.send({ type: "hello", version: this.version }),
      onMessage: (message) => this.receive(message),
      onStatus: (status) => ui.indicators.connection(status),
    });
  }

  start() {
    this.socket.connect();
  }

  // -- outgoing ----------------------------------------------------------------------------------------

  edit(target, id, text) {
    const key = itemKey(target, id);
    const previous = this.dirty.get(key);
    this.dirty.set(key, { ...previous, target, id, text });
    this.ui.indicators.saved("unsaved", this.version);
    if (!this.senders.has(key)) this.senders.set(key, debounce(() => this.flush(key), EDIT_DELAY_MS));
    this.senders.get(key)();
  }

  expected(target, id, expected) {
    const key = itemKey(target, id);
    const text = this.ui.workspace.text(target, id);
    this.dirty.set(key, { ...this.dirty.get(key), target, id, text, expected });
    this.flush(key);
  }

  flush(key) {
    const item = this.dirty.get(key);
    if (!item) return;
    const message = { type: "edit", target: item.target, id: item.id, text: item.text, clientSeq: ++this.seq };
    if ("expected" in item) message.expected = item.expected;
    if (this.socket.send(message)) {
      this.pending.set(message.clientSeq, { key, item });
      this.ui.indicators.saved("saving", this.version);
    } else {
      this.ui.indicators.saved("offline", this.version);
    }
  }

  flushAll() {
    for (const sender of this.senders.values()) sender.cancel();
    for (const key of this.dirty.keys()) this.flush(key);
  }

  send(message) {
    const ok = this.socket.send({ ...message, clientSeq: ++this.seq });
    if (!ok) this.ui.onError?.({ code: "offline", message: "Not connected: try again in a moment." });
    return ok;
  }

  evaluateNow() {
    this.flushAll();
    this.send({ type: "evaluate" });
  }

  // -- incoming ----------------------------------------------------------------------------------------

  receive(message) {
    const { results, workspace, indicators } = this.ui;
    switch (message.type) {
      case "state": {
        this.version = message.version;
        if (typeof message.canEdit === "boolean") this.canEdit = message.canEdit;
        workspace.reconcile(message.project, new Set(this.dirty.keys()));
        this.ui.onState?.(message);
        if (message.viewers != null) indicators.viewers(message.viewers);
        if (this.dirty.size) this.flushAll(); // typed while offline: save it now
        else indicators.saved("saved", this.version);
        break;
      }
      case "ack": {
        const sent = this.pending.get(message.clientSeq);
        this.pending.delete(message.clientSeq);
        if (typeof message.version === "number") this.version = Math.max(this.version ?? 0, message.version);
        if (sent && this.dirty.get(sent.key) === sent.item) this.dirty.delete(sent.key);
        if (!this.pending.size && !this.dirty.size) indicators.saved("saved", this.version);
        break;
      }
      case "edited": {
        const key = itemKey(message.target, message.id);
        if (typeof message.version === "number") this.version = Math.max(this.version ?? 0, message.version);
        if (!this.dirty.has(key)) {
          const entry = workspace.get(message.target, message.id);
          if (entry) workspace.update(entry, { text: message.text, name: message.name, expected: message.expected }, false);
        }
        break;
      }
      case "evaluating":
        results.evaluating(message.version);
        break;
      case "documentErrors":
        results.documentErrors(message);
        workspace.setDocumentErrors(message.documents, message.typecheck);
        break;
      case "typecheck":
        results.typecheck(message.version, message.typecheck);
        workspace.setDocumentErrors(undefined, message.typecheck);
        break;
      case "result":
        results.result(message.version, message.request, workspace.requestOrder());
        workspace.setRequestErrors(message.request?.id, message.request?.result);
        break;
      case "done":
        results.done(message.version, message.ms, workspace.requestOrder());
        break;
      case "viewers":
        indicators.viewers(message.count);
        break;
      case "error": {
        if (message.clientSeq != null) {
          const sent = this.pending.get(message.clientSeq);
          this.pending.delete(message.clientSeq);
          if (sent) indicators.saved("error", this.version);
        }
        this.ui.onError?.(message.error || {});
        break;
      }
      default:
        break;
    }
  }
}
