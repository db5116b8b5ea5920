// Co-editing clients for the convergence tests: each is a headless CodeMirror state with the real
// @codemirror/collab and the page's own CollabSync (static/src/collab.js), talking to a live server over a
// real WebSocket. Reads a JSON plan on stdin, runs every client's script concurrently, waits until every
// client has nothing unsent and the same version, and prints what each ended with.
//
// Plan: {base, projectId, token, target, id, scripts: [[op, ...], ...]} where op is
//   {insert: "<marker>", at: 0..1}  insert at a boundary between markers and fillers
//   {filler: n, at: 0..1}           insert n "." characters
//   {remove: 0..1}                  delete one filler "." (never part of a marker)
//   {wait: ms} | {drop: true}       pause | lose the connection (typing goes on offline; it reconnects)
//   {squash: true}                  push squashed from now until the next ack, as the page does after a refusal
// and optionally `pace` (ms between a client's operations, ± 50 %; default 1–16 ms). It also reports every
// keystroke → remote echo time: from typing a marker to another client receiving it.

import { EditorState } from "@codemirror/state";
import { CollabSync, collabExtensions } from "../../../static/src/collab.js";

const plan = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));
const wsBase = plan.base.replace(/^http/, "ws");
// Keystroke → remote echo: when each marker was typed, and how long until each other client received it.
const typedAt = new Map();
const echoes = [];
const MARKER = /<c\d+-\d+>/g;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Client {
  constructor(index, text, version) {
    this.index = index;
    this.seq = 0;
    this.ws = null;
    this.open = false;
    this.errors = [];
    this.closes = [];
    this.state = EditorState.create({ doc: text, extensions: [collabExtensions(version)] });
    const host = {
      state: () => this.state,
      dispatch: (transaction) => (this.state = transaction.state),
      reset: (resetText, resetVersion) => {
        this.state = EditorState.create({ doc: resetText, extensions: [collabExtensions(resetVersion)] });
      },
    };
    this.sync = new CollabSync({ target: plan.target, id: plan.id, host, send: (m) => this.send(m) });
  }

  connect() {
    return new Promise((resolve) => {
      // A browser sends its Origin, which the server checks; Node's WebSocket takes it as a header.
      const ws = new WebSocket(`${wsBase}/ws/projects/${plan.projectId}/`, { headers: { origin: plan.base } });
      this.ws = ws;
      ws.onopen = () => {
        this.open = true;
        this.dropped = false;
        ws.send(JSON.stringify({ type: "hello", version: null, token: plan.token, name: `client ${this.index}` }));
        this.sync.resync();
        resolve();
      };
      ws.onmessage = (event) => this.receive(JSON.parse(event.data));
      ws.onclose = (event) => {
        if (this.ws !== ws) return;
        const wasOpen = this.open;
        this.open = false;
        if (this.dropped) return; // the script's own drop: it reconnects when the script says
        if (wasOpen) this.closes.push(event.code); // the server closed it: reconnect, as the page does
        setTimeout(() => this.connect().then(resolve), 100);
      };
    });
  }

  drop() {
    this.open = false;
    this.dropped = true;
    this.ws.close();
  }

  send(message) {
    if (!this.open || this.ws.readyState !== WebSocket.OPEN) return 0;
    this.ws.send(JSON.stringify({ ...message, clientSeq: ++this.seq }));
    return this.seq;
  }

  receive(message) {
    if (message.type === "state") {
      const item = (message.project[plan.target === "document" ? "documents" : "requests"] || [])
        .find((i) => i.id === plan.id);
      if (item) this.sync.resync(item.collabVersion);
    } else if (message.type === "updates" && message.id === plan.id) {
      if (!message.rejected) this.measure(message.updates || []);
      this.sync.receive(message);
    } else if (message.type === "ack" && message.updates) {
      this.sync.ack(message);
    } else if (message.type === "error") {
      this.errors.push(message.error);
      this.sync.failed(message.clientSeq);
    }
  }

  measure(updates) {
    const now = performance.now();
    for (const update of updates) {
      for (const part of update.changes) {
        if (!Array.isArray(part)) continue;
        for (const marker of part.slice(1).join("\n").match(MARKER) || []) {
          if (typedAt.has(marker)) echoes.push(now - typedAt.get(marker));
        }
      }
    }
  }

  /** Positions where an insertion keeps markers whole: the start, or after a filler or a marker's end. */
  boundary(at) {
    const text = this.state.doc.toString();
    const places = [0];
    for (let i = 0; i < text.length; i += 1) if (text[i] === "." || text[i] === ">") places.push(i + 1);
    return places[Math.min(places.length - 1, Math.floor(at * places.length))];
  }

  type(changes) {
    this.state = this.state.update({ changes }).state;
    this.sync.push();
  }

  async run(script) {
    let offlineFor = 0;
    for (const op of script) {
      if (op.wait) await sleep(op.wait);
      else if (op.squash) this.sync.squash = true;
      else if (op.drop) {
        this.drop();
        offlineFor = 2;
      } else if (op.insert) {
        typedAt.set(op.insert, performance.now());
        this.type({ from: this.boundary(op.at), insert: op.insert });
      }
      else if (op.filler) this.type({ from: this.boundary(op.at), insert: ".".repeat(op.filler) });
      else if (op.remove !== undefined) {
        const text = this.state.doc.toString();
        const fillers = [...text].map((c, i) => (c === "." ? i : -1)).filter((i) => i >= 0);
        if (fillers.length) {
          const from = fillers[Math.min(fillers.length - 1, Math.floor(op.remove * fillers.length))];
          this.type({ from, to: from + 1 });
        }
      }
      if (offlineFor > 0 && !op.drop) {
        offlineFor -= 1;
        if (offlineFor === 0) await this.connect();
      }
      await sleep(plan.pace ? plan.pace * (0.5 + Math.random()) : 1 + Math.random() * 15);
    }
    if (!this.open) await this.connect();
  }

  get idle() {
    return this.open && !this.sync.inflight && this.sync.unsent === 0;
  }
}

const project = await (await fetch(`${plan.base}/api/v1/projects/${plan.projectId}`)).json();
const item = project[plan.target === "document" ? "documents" : "requests"].find((i) => i.id === plan.id);
const clients = plan.scripts.map((_, index) => new Client(index, item.text, item.collabVersion));
await Promise.all(clients.map((client) => client.connect()));
await Promise.all(clients.map((client, index) => client.run(plan.scripts[index])));

// Quiescence: everything confirmed and every client at the server's newest version.
const deadline = Date.now() + 30000;
let settled = false;
while (Date.now() < deadline) {
  for (const client of clients) if (client.idle) client.sync.pull();
  await sleep(150);
  const versions = new Set(clients.map((client) => client.sync.version));
  if (clients.every((client) => client.idle) && versions.size === 1) {
    settled = true;
    break;
  }
}
const report = JSON.stringify({
  settled,
  texts: clients.map((client) => client.state.doc.toString()),
  versions: clients.map((client) => client.sync.version),
  unsent: clients.map((client) => client.sync.unsent),
  errors: clients.flatMap((client) => client.errors),
  closes: clients.flatMap((client) => client.closes),
  echoes,
});
for (const client of clients) client.ws.close();
// A pipe takes large writes asynchronously: exit only once the whole report is out (a long run's echoes
// are more than the pipe's 64 KiB).
process.stdout.write(report + "\n", () => process.exit(0));
