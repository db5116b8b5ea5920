// What the workshop pages share on top of the site's modules: the room socket (ReconnectingSocket with a
// status line), read-only document figures, the countdown of a time-boxed exercise, and the teacher's headers.

import { ReconnectingSocket } from "./socket.js";
import { h } from "./dom.js";

const STATUS_TEXT = { connecting: "connecting…", open: "live", closed: "reconnecting…", failed: "disconnected" };

/**
 * A room socket that reconnects with jitter. `hello`: the first message after each (re)connect; it carries the
 * teacher's or the student's token, which never goes in the URL (proxy logs, browser history).
 * `onRefused(code)`: an unknown token or room (4403/4404).
 */
export function roomSocket(path, { hello = null, onMessage, stateNode, onRefused = () => {} }) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new ReconnectingSocket(`${scheme}//${window.location.host}${path}`, {
    onOpen: () => { if (hello) socket.send(hello()); },
    onMessage,
    onStatus: (status) => {
      if (stateNode) {
        stateNode.dataset.state = status === "closed" ? "reconnecting" : status === "failed" ? "closed" : status;
        stateNode.textContent = STATUS_TEXT[status] || status;
      }
      if (status === "failed") onRefused();
    },
  });
  socket.connect();
  return socket;
}

/** Documents as read-only figures (the solution, the presenter's text). */
export function documentsView(documents) {
  return (documents || []).map((doc) => h("figure", { class: "ws-doc" }, h("figcaption", {}, doc.name), h("pre", {}, doc.text)));
}

/** "mm:ss" left until `deadline` (ISO), or "+mm:ss" over it. */
export function countdownText(deadline, now = Date.now()) {
  const left = Math.round((Date.parse(deadline) - now) / 1000);
  const abs = Math.abs(left);
  const text = `${Math.floor(abs / 60)}:${String(abs % 60).padStart(2, "0")}`;
  return left >= 0 ? text : `+${text}`;
}

/** Keep `node` showing the countdown to the room's time box (hidden when the exercise has none);
 *  `onOver()` runs when the time box runs out (the dashboard flags who is over time at once). */
export function countdown(node, onOver = () => {}) {
  let deadline = null;
  let wasOver = false;
  const paint = () => {
    node.hidden = !deadline;
    if (!deadline) return;
    const over = Date.parse(deadline) <= Date.now();
    if (over && !wasOver) onOver();
    wasOver = over;
    node.dataset.over = String(over);
    node.textContent = over ? `Time is up (${countdownText(deadline)})` : `Time left: ${countdownText(deadline)}`;
  };
  setInterval(paint, 1000);
  return { set(value) { deadline = value || null; wasOver = false; paint(); } };
}

/** Edits not yet acknowledged, by document id: `send(id, text, seq)` sends one (false while offline: it stays
 *  pending); pending edits are sent again after a reconnect and win over the server's older text. */
export class EditQueue {
  constructor(send) { this.sendOne = send; this.seq = 0; this.dirty = new Map(); }

  change(id, text) {
    const entry = { text, seq: (this.seq += 1) };
    this.dirty.set(String(id), entry);
    this.sendOne(id, entry.text, entry.seq);
  }

  /** The server's `ack {id, clientSeq}`: done, unless a newer edit of the same document is on its way. */
  ack({ id, clientSeq }) {
    if (this.dirty.get(String(id))?.seq === clientSeq) this.dirty.delete(String(id));
  }

  resend() { for (const [id, entry] of this.dirty) this.sendOne(id, entry.text, entry.seq); }

  /** The text to show for a document the server sent: ours while an edit of it is pending. */
  textOf(doc) { return this.dirty.get(String(doc.id))?.text ?? doc.text; }

  get pending() { return this.dirty.size; }

  reset() { this.dirty.clear(); }
}

/** "policy: name", "binding: name", "namespace: name" … of a YAML document (as the shipped sets name them). */
export function documentName(text, index) {
  const kind = /^kind:\s*(\S+)/m.exec(text)?.[1];
  const name = /^\s{2}name:\s*(\S+)/m.exec(text)?.[1];
  if (!kind) return `document ${index + 1}`;
  const role = kind.endsWith("Binding") ? "binding" : kind.endsWith("Policy") ? "policy" : kind.toLowerCase();
  return `${role}${name ? `: ${name}` : ""}`;
}

/** One text of YAML documents separated by `---` lines → [{name, text}] (empty parts dropped). */
export function splitDocuments(text) {
  return text.split(/^---\s*$/m).map((part) => part.replace(/^\n+/, "")).filter((part) => part.trim())
    .map((part, i) => ({ name: documentName(part, i), text: part.endsWith("\n") ? part : `${part}\n` }));
}

const HEADER = /^# === (.+) ===[ \t]*$/m;

/** Documents as one text, each under a `# === name ===` line (a document may hold several YAML documents). */
export function joinNamed(documents) {
  return documents.map((d) => `# === ${d.name} ===\n${d.text}${d.text.endsWith("\n") ? "" : "\n"}`).join("");
}

/** The text of `joinNamed` → [{name, text}]; a text without those lines is split at `---` instead. */
export function splitNamed(text) {
  if (!HEADER.test(text)) return splitDocuments(text);
  const parts = text.split(new RegExp(HEADER.source, "m"));  // [before, name, text, name, text, …]
  const documents = [];
  for (let i = 1; i < parts.length; i += 2) {
    const body = parts[i + 1].replace(/^\n/, "");
    if (body.trim()) documents.push({ name: parts[i].trim(), text: body.endsWith("\n") ? body : `${body}\n` });
  }
  return documents;
}
