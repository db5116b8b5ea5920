// Unit tests of ReconnectingSocket (node --test) against a stand-in WebSocket: a server that accepts only to
// say "unavailable" and close with 4503 (Redis down) is retried with a growing delay capped at ~2 s, a
// served socket starts the backoff again, 4403/4404 are final, and a server shutting down ("reconnect", then
// 4012) is asked again within the restart spread (RESTART_SPREAD_MS), each page at its own moment.

import test from "node:test";
import assert from "node:assert/strict";
import { RESTART_CLOSE_CODE, RESTART_SPREAD_MS, ReconnectingSocket } from "../src/socket.js";

class FakeSocket {
  static OPEN = 1;
  static made = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.listeners = {};
    FakeSocket.made.push(this);
  }
  addEventListener(kind, listener) { (this.listeners[kind] ||= []).push(listener); }
  emit(kind, event = {}) { for (const listener of this.listeners[kind] || []) listener(event); }
  open() { this.readyState = FakeSocket.OPEN; this.emit("open"); }
  message(body) { this.emit("message", { data: JSON.stringify(body) }); }
  closeWith(code) { this.readyState = 3; this.emit("close", { code }); }
  close() { this.closeWith(1000); }
}

function harness(t) {
  FakeSocket.made = [];
  globalThis.WebSocket = FakeSocket;
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.mock.method(Math, "random", () => 1); // the longest jitter (+25%): the worst case
  const statuses = [];
  const socket = new ReconnectingSocket("ws://x/ws/rooms/ABC/student/", { onStatus: (s) => statuses.push(s) });
  socket.connect();
  return { socket, statuses, last: () => FakeSocket.made.at(-1) };
}

function refusedAsUnavailable(fake) {
  fake.open();
  fake.message({ type: "error", error: { code: "unavailable" } });
  fake.closeWith(4503);
}

/** Advance the clock until a new socket is made; how long that took (ms). */
function untilNextAttempt(t, step = 10) {
  const before = FakeSocket.made.length;
  let waited = 0;
  while (FakeSocket.made.length === before && waited < 60000) {
    t.mock.timers.tick(step);
    waited += step;
  }
  return waited;
}

test("4503 after an 'unavailable' error is retried with a growing delay capped at 2.5 s", (t) => {
  const { last } = harness(t);
  const delays = [];
  for (let i = 0; i < 8; i += 1) {
    refusedAsUnavailable(last());
    delays.push(untilNextAttempt(t));
  }
  assert.deepEqual(delays, [320, 630, 1250, 2500, 2500, 2500, 2500, 2500]);
});

test("a served socket resets the backoff: the next drop is retried at once", (t) => {
  const { last } = harness(t);
  for (let i = 0; i < 5; i += 1) {
    refusedAsUnavailable(last());
    untilNextAttempt(t);
  }
  last().open();
  last().message({ type: "welcome" });
  last().closeWith(1006);
  assert.equal(untilNextAttempt(t), 320);
});

test("4403 and 4404 are final: no retry", (t) => {
  for (const code of [4403, 4404]) {
    const { last, statuses } = harness(t);
    last().open();
    last().closeWith(code);
    t.mock.timers.tick(60000);
    assert.equal(FakeSocket.made.length, 1);
    assert.equal(statuses.at(-1), "failed");
    t.mock.timers.reset();
  }
});

test("'reconnect' then 4012: back within the restart spread, not handed to the page", (t) => {
  const seen = [];
  FakeSocket.made = [];
  globalThis.WebSocket = FakeSocket;
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.mock.method(Math, "random", () => 0.5);
  const socket = new ReconnectingSocket("ws://x/ws/projects/p/", { onMessage: (m) => seen.push(m.type) });
  socket.connect();
  const first = FakeSocket.made.at(-1);
  first.open();
  first.message({ type: "state" });
  first.message({ type: "reconnect", reason: "server restarting" });
  first.closeWith(RESTART_CLOSE_CODE);
  assert.equal(untilNextAttempt(t, 1), RESTART_SPREAD_MS / 2);
  assert.deepEqual(seen, ["state"]);
});

test("the restart delay is spread: pages told to reconnect at once come back at different moments", (t) => {
  FakeSocket.made = [];
  globalThis.WebSocket = FakeSocket;
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let draw = 0;
  t.mock.method(Math, "random", () => [0.1, 0.9][draw++ % 2]);
  const pages = [0, 1].map(() => new ReconnectingSocket("ws://x/ws/rooms/ABC/student/", {}));
  for (const page of pages) page.connect();
  for (const fake of [...FakeSocket.made]) {
    fake.open();
    fake.message({ type: "reconnect" });
    fake.closeWith(RESTART_CLOSE_CODE);
  }
  t.mock.timers.tick(RESTART_SPREAD_MS * 0.1);
  assert.equal(FakeSocket.made.length, 3); // the first page is back, the second still waits
  t.mock.timers.tick(RESTART_SPREAD_MS * 0.8);
  assert.equal(FakeSocket.made.length, 4);
});

test("a server still answering 'reconnect' (the one going away) is asked with the usual backoff", (t) => {
  const { last } = harness(t);
  const delays = [];
  for (let i = 0; i < 3; i += 1) {
    last().open();
    last().message({ type: "reconnect" });
    last().closeWith(RESTART_CLOSE_CODE);
    delays.push(untilNextAttempt(t));
  }
  assert.deepEqual(delays, [RESTART_SPREAD_MS, 630, 1250]);
});
