// The live project: texts are co-edited with the server as the authority (collab.js), names, expected
// outcomes and structure edits go as messages, results stream back with no click. Reconnects resync every
// text by version and send whatever was typed while offline; nothing typed is dropped. Typing is sent at once;
// while its evaluation is on its way further typing is held and goes as one push when the answer comes
// (feedback.js), and the results shown meanwhile are marked stale.

import { ReconnectingSocket } from "./socket.js";
import { itemKey } from "./workspace.js";
import { CollabSync, lastingRefusal } from "./collab.js";
import { debounce } from "./dom.js";
import { EditFeedback } from "./feedback.js";

const CURSOR_DELAY_MS = 80;

export class LiveProject {
  /** ui: {workspace, results, indicators: {connection(state), saved(state, version), viewers(n)}, onState(msg),
   *       onError(e), onNotice(text)}; token travels in the first message, never in the URL. */
  constructor({ projectId, token, wsPath, name, ui }) {
    this.projectId = projectId;
    this.token = token;
    this.name = name;
    this.ui = ui;
    this.version = null;
    this.seq = 0;
    this.pending = new Map(); // clientSeq → item key (name/expected edits awaiting their ack)
    this.syncs = new Map(); // item key → CollabSync
    this.canEdit = false;
    this.tokenPending = false; // a connection's first state predates its hello (the token's answer follows)
    this.online = false;
    this.feedback = new EditFeedback({
      onStale: (stale) => ui.results.markStale?.(stale),
      onRelease: () => this.flushAll(),
    });
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const path = wsPath || `/ws/projects/${encodeURIComponent(projectId)}/`;
    this.socket = new ReconnectingSocket(`${scheme}//${window.location.host}${path}`, {
      onOpen: () => {
        this.online = true;
        this.tokenPending = Boolean(this.token);
        // bundle: each evaluation's messages (documentErrors, the results, done) arrive as one frame;
        // unchanged: a result this connection sent already comes as `unchanged` (we keep the last of each)
        const hello = { type: "hello", version: this.version, name: this.name, bundle: true, unchanged: true };
        if (this.token) hello.token = this.token;
        this.socket.send(hello);
        this.feedback.reset(this.unsent() > 0, this.version); // what is unsent goes again below
        for (const sync of this.syncs.values()) sync.resync();
        this.showSaved();
      },
      onMessage: (message) => this.receive(message),
      onStatus: (status) => {
        if (status !== "open") this.online = false;
        ui.indicators.connection(status);
        this.showSaved();
      },
    });
    this.sendCursor = debounce((key) => {
      const message = this.syncs.get(key)?.cursorMessage();
      if (message) this.socket.send(message);
    }, CURSOR_DELAY_MS);
  }

  start() {
    this.socket.connect();
  }

  /** A new edit token (an edit link pasted into this tab): the room is told at once; its answer is a state
   * whose canEdit says what the token allows. A later reconnect sends it in its hello as usual. */
  useToken(token) {
    if (!token || token === this.token) return;
    this.token = token;
    if (this.online) this.socket.send({ type: "hello", version: this.version, name: this.name, token });
  }

  // -- co-edited texts ---------------------------------------------------------------------------------------

  /** The sync of one text, bound to its current editor (a panel rebuilt after a state gets a new one). */
  sync(target, id) {
    const key = itemKey(target, id);
    const entry = this.ui.workspace.get(target, id);
    if (!entry) return null;
    let sync = this.syncs.get(key);
    if (!sync || sync.host !== entry.editor) {
      sync = new CollabSync({ target, id, host: entry.editor, send: (message) => {
        const push = message.type === "push";
        if (push && this.feedback.awaiting) return 0; // held: sent when the evaluation on its way is shown
        const clientSeq = ++this.seq;
        if (!this.socket.send({ ...message, clientSeq })) return 0;
        if (push) this.feedback.sent(clientSeq);
        return clientSeq;
      } });
      this.syncs.set(key, sync);
    }
    return sync;
  }

  /** A local change of a text (the editor already holds it; the collab state keeps it until confirmed). */
  edit(target, id) {
    this.feedback.typed();
    this.sync(target, id)?.push();
    this.showSaved();
  }

  selection(target, id) {
    if (this.syncs.size && this.online) this.sendCursor(itemKey(target, id));
  }

  /** Typing the server refused to save (a NUL, over the size limit) and that is still unsent: only here. */
  refusedUnsent() {
    for (const sync of this.syncs.values()) if (sync.squash && sync.unsent) return true;
    return false;
  }

  unsent() {
    let count = this.pending.size;
    for (const sync of this.syncs.values()) count += sync.unsent;
    return count;
  }

  showSaved() {
    const { indicators } = this.ui;
    if (!this.canEdit) return;
    if (!this.online) indicators.saved(this.unsent() ? "offline" : "offline-clean", this.version);
    else indicators.saved(this.unsent() ? "saving" : "saved", this.version);
  }

  // -- other edits -----------------------------------------------------------------------------------------

  expected(target, id, expected) {
    this.send({ type: "edit", target, id, expected }, itemKey(target, id));
  }

  flushAll() {
    for (const sync of this.syncs.values()) sync.push();
  }

  send(message, key = null) {
    const clientSeq = ++this.seq;
    const ok = this.socket.send({ ...message, clientSeq });
    if (!ok) this.ui.onError?.({ code: "offline", message: "Not connected: try again in a moment." });
    else if (key) this.pending.set(clientSeq, key);
    this.showSaved();
    return ok;
  }

  /** An `unchanged` result: the entry kept for that request (the same digest) with the verdict of now; null
   * when this page does not hold it (the server is then asked for every result in full, once). */
  unchanged(head) {
    const kept = this.ui.results.kept?.(head.id);
    if (kept && kept.digest === head.digest) {
      const entry = { ...head, result: kept.result };
      delete entry.unchanged;
      return entry;
    }
    if (this.online) this.socket.send({ type: "evaluate", full: true });
    return null;
  }

  evaluateNow() {
    this.flushAll();
    this.send({ type: "evaluate" });
  }

  // -- incoming ----------------------------------------------------------------------------------------

  receive(message) {
    const { results, workspace, indicators } = this.ui;
    switch (message.type) {
      case "bundle":
        for (const part of message.messages || []) this.receive(part);
        break;
      case "state": {
        this.version = message.version;
        if (this.tokenPending && message.canEdit === false) {
          // Sent on connect, before the server read our hello: its "read-only" is an anonymous viewer's.
          // Keep the editability shown until the hello's answer says what the token allows.
          message = { ...message, canEdit: undefined };
        } else if (typeof message.canEdit === "boolean") {
          this.canEdit = message.canEdit;
        }
        this.tokenPending = false;
        this.noticeDeleted(message.project);
        workspace.reconcile(message.project);
        for (const target of ["document", "request"]) {
          for (const item of message.project[target === "document" ? "documents" : "requests"] || []) {
            this.sync(target, item.id)?.resync(item.collabVersion);
          }
        }
        this.ui.onState?.(message);
        if (message.viewers != null) indicators.viewers(message.viewers);
        this.showSaved();
        break;
      }
      case "updates": {
        this.bumpVersion(message.version);
        if (message.rejected) this.feedback.dropped(message.clientSeq);
        else if (message.by != null) this.feedback.need(message.version); // another editor's change
        this.sync(message.target, message.id)?.receive(message);
        this.showSaved();
        break;
      }
      case "ack": {
        this.bumpVersion(message.version);
        if (typeof message.collabVersion === "number" && message.updates) {
          const sync = this.sync(message.target, message.id);
          sync?.ack(message);
          this.feedback.acked(message.clientSeq, message.version);
          // The cursor waits for typing to be confirmed (positions then agree): show it to the others now.
          if (sync?.host.view?.hasFocus) this.selection(message.target, message.id);
        }
        this.pending.delete(message.clientSeq);
        this.showSaved();
        break;
      }
      case "edited": {
        this.bumpVersion(message.version);
        this.feedback.need(message.version);
        const entry = workspace.get(message.target, message.id);
        if (entry) workspace.update(entry, { name: message.name, expected: message.expected });
        if (typeof message.collabVersion === "number") this.sync(message.target, message.id)?.resync(message.collabVersion);
        break;
      }
      case "cursor": {
        if (message.gone) {
          for (const sync of this.syncs.values()) sync.remoteCursor(message, sync.host.view);
        } else {
          const sync = this.sync(message.target, message.id);
          sync?.remoteCursor(message, sync.host.view);
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
      case "result": {
        const entry = message.request?.unchanged ? this.unchanged(message.request) : message.request;
        if (!entry) break; // not kept here (shown from elsewhere): every result comes again in full
        results.result(message.version, entry, workspace.requestOrder());
        workspace.setRequestErrors(entry.id, entry.result);
        break;
      }
      case "done": {
        const since = this.feedback.answered(message.version); // held typing is sent first
        results.done(message.version, message.ms, workspace.requestOrder());
        if (since !== null) afterNextPaint(() => results.latency?.(performance.now() - since));
        break;
      }
      case "viewers":
        indicators.viewers(message.count);
        break;
      case "error": {
        let refused = message.clientSeq != null && this.pending.delete(message.clientSeq);
        const lasting = lastingRefusal(message.error); // "Save failed" for a push refused for good, not a 429
        for (const sync of this.syncs.values()) refused = (sync.failed(message.clientSeq, message.error) && lasting) || refused;
        if (refused) indicators.saved("error", this.version);
        if (message.clientSeq != null) this.feedback.dropped(message.clientSeq);
        else this.feedback.release(); // an evaluation that failed: no answer is coming
        if (message.error?.code === "not_found") this.dropGone();
        this.ui.onError?.(message.error || {});
        break;
      }
      default:
        break;
    }
  }

  bumpVersion(version) {
    if (typeof version === "number") this.version = Math.max(this.version ?? 0, version);
  }

  /** A text deleted by someone else while this client still had unsent changes in it: say so, keep the text. */
  noticeDeleted(project) {
    const present = new Set();
    for (const target of ["document", "request"]) {
      for (const item of project[target === "document" ? "documents" : "requests"] || []) present.add(itemKey(target, item.id));
    }
    for (const [key, sync] of this.syncs) {
      if (present.has(key)) continue;
      if (sync.unsent) {
        const text = sync.host.state().doc.toString();
        this.ui.onNotice?.({ message: `Another editor deleted the ${sync.target} you were typing in; your text was kept.`,
          target: sync.target, text });
      }
      this.syncs.delete(key);
    }
  }

  dropGone() {
    for (const [key, sync] of this.syncs) if (!this.ui.workspace.get(sync.target, sync.id)) this.syncs.delete(key);
  }
}

/** Run `fn` once the frame showing the current DOM has been rendered (a message posted from its
 * requestAnimationFrame runs after that frame). */
function afterNextPaint(fn) {
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => fn();
    channel.port2.postMessage(null);
  });
}
