// Co-editing of one text with the server as the central authority (@codemirror/collab): local changes are
// pushed on top of the newest version the client knows; the server rebases them over what this client missed,
// saves them and answers with the missed changes followed by ours as saved, which the library takes in one
// step (ours are recognised by clientID). Nothing typed is dropped: unsent changes stay in the editor state
// until the server confirms them, across reconnects. Remote cursors are shown with their author's name.

import { ChangeSet, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, WidgetType } from "@codemirror/view";
import { collab, getClientID, getSyncedVersion, receiveUpdates, sendableUpdates } from "@codemirror/collab";

const PULL_AFTER_ACK_MS = 300;

/**
 * Unsent updates as one change (their composition) followed by empty ones: the library confirms its updates by
 * count, so the count stays; what a later change undid is not sent at all. Only after a refusal, and marked
 * `squashed`: the server never rebases such a push (a composition mapped over a co-editor's change at the same
 * spot may break a tie otherwise than its parts, which this client maps in turn) but answers what it missed,
 * and it goes again on top of that.
 */
function squashed(updates) {
  const composed = updates.reduce((all, u) => all.compose(u.changes), ChangeSet.empty(updates[0].changes.length));
  const empty = ChangeSet.empty(composed.newLength).toJSON();
  return updates.map((u, i) => ({ clientID: u.clientID, changes: i === 0 ? composed.toJSON() : empty }));
}

/** A refusal for what a push carries (a NUL, the size limit: any 4xx but 429): sent again as it is, it fails again. */
export function lastingRefusal(error) {
  const status = error?.status;
  return status >= 400 && status < 500 && status !== 429;
}

/** The extensions a co-edited editor needs: the collab state plus the remote cursors. */
export function collabExtensions(startVersion) {
  return [collab({ startVersion }), remoteCursors];
}

/**
 * Keeps one editor in sync with the authority.
 * host: {state(), dispatch(transaction), reset(text, version)}; send(message) → bool (false when offline).
 */
export class CollabSync {
  constructor({ target, id, host, send }) {
    this.target = target;
    this.id = id;
    this.host = host;
    this.send = send;
    this.inflight = false;
    this.inflightSeq = null; // the clientSeq of the push on its way, to recognise an error answer
    this.retry = null;
    this.squash = false; // a push was refused for what it carried: send the unsent changes as `squashed` does
    this.cursors = new Map(); // connection → {name, ranges, version}
  }

  get version() {
    return getSyncedVersion(this.host.state());
  }

  /** Changes typed here that the server has not confirmed yet. */
  get unsent() {
    return sendableUpdates(this.host.state()).length;
  }

  /** Push what was typed, unless a push is already on its way (its answer triggers the next one). */
  push() {
    if (this.inflight) return false;
    const updates = sendableUpdates(this.host.state());
    if (!updates.length) return false;
    const squash = this.squash && updates.length > 1;
    const message = { type: "push", target: this.target, id: this.id, version: this.version,
      updates: squash ? squashed(updates) : updates.map((u) => ({ clientID: u.clientID, changes: u.changes.toJSON() })) };
    if (squash) message.squashed = true;
    const seq = this.send(message);
    if (!seq) return false;
    this.inflight = true;
    this.inflightSeq = seq;
    return true;
  }

  /** The server refused our push with an error: nothing was saved, and the changes stay unsent. One that may
   * pass later (rate, a dropped worker) is pushed again after a pause; one refused for what the text holds
   * (a NUL, the size limit: a 4xx other than 429) waits for the next change typed here, which may mend it, and
   * is then sent squashed: what a later change undid (the NUL deleted, the paste cut) is no longer sent. */
  failed(clientSeq, error) {
    if (!this.inflight || clientSeq !== this.inflightSeq) return false;
    this.inflight = false;
    clearTimeout(this.retry);
    if (lastingRefusal(error)) this.squash = true;
    else this.retry = setTimeout(() => this.push(), 500);
    return true;
  }

  /** The server's answer with history: our accepted push (ack), a reset, a pull or another's change. */
  receive(message) {
    if (message.reset) {
      this.inflight = false;
      this.host.reset(message.text, message.collabVersion);
      return;
    }
    const all = message.updates || [];
    // The history is linear: of changes from `from` on, the first ones may be held already (another's change
    // arrived while our push was on its way); skip those. A gap means we missed something: ask for exactly
    // that, or, when up to date, send what is still unsent — changes must never wait unsent.
    const held = this.version - message.from;
    if (held < 0 || held > all.length) {
      if (message.rejected) this.inflight = false;
      if (message.collabVersion > this.version) this.pull();
      else this.push();
      return;
    }
    // One change at a time, as the server rebases a push over each missed change on its own: mapping over
    // two changes in turn is not always mapping over their composition, and both sides must take the same
    // steps to end with the same text (playground/collab/rebase.py).
    for (const u of all.slice(held)) {
      const update = { changes: ChangeSet.fromJSON(u.changes), clientID: u.clientID };
      this.host.dispatch(receiveUpdates(this.host.state(), [update]));
    }
    if (message.rejected) this.inflight = false;
    this.push();
  }

  /** Our push was saved (committed) by the server; the ack carries it back so the library confirms it. */
  ack(message) {
    this.inflight = false;
    this.squash = false;
    this.receive(message);
    const expected = message.collabVersion;
    setTimeout(() => {
      if (this.version < expected) this.pull();
    }, PULL_AFTER_ACK_MS);
  }

  pull() {
    this.send({ type: "pull", target: this.target, id: this.id, version: this.version });
  }

  /** After a reconnect or a project state: catch up with the server, then send what was typed meanwhile. */
  resync(serverVersion) {
    this.inflight = false;
    if (typeof serverVersion === "number" && serverVersion > this.version) this.pull();
    else this.push();
  }

  /** This client's cursor, for the others (only when everything typed is confirmed: positions then agree). */
  cursorMessage() {
    const state = this.host.state();
    if (sendableUpdates(state).length) return null;
    const ranges = state.selection.ranges.map((r) => ({ anchor: r.anchor, head: r.head }));
    return { type: "cursor", target: this.target, id: this.id, version: this.version, ranges };
  }

  /** Another editor's cursor; positions refer to `version`, so they are mapped over our unsent changes. */
  remoteCursor(message, view) {
    if (message.gone) this.cursors.delete(message.connection);
    else if (message.version === this.version) {
      let ranges = message.ranges;
      for (const update of sendableUpdates(this.host.state())) {
        ranges = ranges.map((r) => ({ anchor: update.changes.mapPos(r.anchor, 1), head: update.changes.mapPos(r.head, 1) }));
      }
      const length = this.host.state().doc.length;
      const clamp = (n) => Math.max(0, Math.min(n, length));
      this.cursors.set(message.connection, { name: message.name || "Guest",
        ranges: ranges.map((r) => ({ anchor: clamp(r.anchor), head: clamp(r.head) })) });
    } else return;
    view?.dispatch({ effects: setRemoteCursors.of([...this.cursors.entries()]) });
  }

  clientID() {
    return getClientID(this.host.state());
  }
}

// ---- remote cursors ----------------------------------------------------------------------------------------

const setRemoteCursors = StateEffect.define();

/** A stable colour per connection, from a small palette readable on light and dark backgrounds. */
const PALETTE = ["#d9480f", "#1971c2", "#2b8a3e", "#ae3ec9", "#c2255c", "#0c8599", "#e67700", "#5f3dc4"];
export function colourOf(connection) {
  let hash = 0;
  for (const char of String(connection)) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

class CaretWidget extends WidgetType {
  constructor(name, colour) {
    super();
    this.name = name;
    this.colour = colour;
  }

  eq(other) {
    return other.name === this.name && other.colour === this.colour;
  }

  toDOM() {
    const caret = document.createElement("span");
    caret.className = "cm-remote-caret";
    caret.style.borderLeftColor = this.colour;
    const label = document.createElement("span");
    label.className = "cm-remote-name";
    label.style.backgroundColor = this.colour;
    label.textContent = this.name; // text, never HTML
    caret.appendChild(label);
    caret.setAttribute("aria-label", `${this.name}'s cursor`);
    return caret;
  }

  ignoreEvent() {
    return true;
  }
}

function decorations(entries) {
  const marks = [];
  for (const [connection, cursor] of entries) {
    const colour = colourOf(connection);
    for (const range of cursor.ranges) {
      const from = Math.min(range.anchor, range.head);
      const to = Math.max(range.anchor, range.head);
      if (from < to) {
        marks.push(Decoration.mark({ class: "cm-remote-selection", attributes: { style: `background-color: ${colour}33` } })
          .range(from, to));
      }
      marks.push(Decoration.widget({ widget: new CaretWidget(cursor.name, colour), side: 1 }).range(range.head));
    }
  }
  return Decoration.set(marks, true);
}

const remoteCursors = StateField.define({
  create: () => Decoration.none,
  update(value, transaction) {
    let next = value.map(transaction.changes);
    for (const effect of transaction.effects) if (effect.is(setRemoteCursors)) next = decorations(effect.value);
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});
