// Unit tests of the workshop pages' pure parts (node --test): the acknowledged edit queue, the countdown
// text, and splitting a text of YAML documents the way the authoring page and presenter mode do.

import test from "node:test";
import assert from "node:assert/strict";
import { EditQueue, countdownText, documentName, joinNamed, splitDocuments, splitNamed } from "../src/workshop-room.js";

test("an edit stays pending until its own ack, and is sent again after a reconnect", () => {
  const sent = [];
  let online = false;
  const queue = new EditQueue((id, text, seq) => { if (online) sent.push([id, text, seq]); return online; });
  queue.change(7, "a: 1");  // typed while offline: nothing goes out, nothing is lost
  queue.change(7, "a: 2");
  assert.deepEqual(sent, []);
  assert.equal(queue.textOf({ id: 7, text: "server text" }), "a: 2");  // the welcome does not overwrite it
  online = true;
  queue.resend();
  assert.deepEqual(sent, [[ "7", "a: 2", 2 ]]);
  queue.change(7, "a: 3");
  queue.ack({ id: 7, clientSeq: 2 });  // an older edit's ack: the newer one is still pending
  assert.equal(queue.pending, 1);
  queue.ack({ id: 7, clientSeq: 3 });
  assert.equal(queue.pending, 0);
  assert.equal(queue.textOf({ id: 7, text: "server text" }), "server text");
});

test("the countdown reads mm:ss, and +mm:ss once over", () => {
  const now = Date.parse("2026-01-01T10:00:00Z");
  assert.equal(countdownText("2026-01-01T10:05:00Z", now), "5:00");
  assert.equal(countdownText("2026-01-01T10:00:09Z", now), "0:09");
  assert.equal(countdownText("2026-01-01T09:58:55Z", now), "+1:05");
});

test("YAML documents split at --- lines and are named by kind and name", () => {
  const docs = splitDocuments("kind: ValidatingAdmissionPolicy\nmetadata:\n  name: limit\n---\n\n---\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: limit-b");
  assert.deepEqual(docs.map((d) => d.name), ["policy: limit", "binding: limit-b"]);
  assert.ok(docs.every((d) => d.text.endsWith("\n")));
  assert.equal(documentName("kind: Namespace\nmetadata:\n  name: prod\n", 0), "namespace: prod");
  assert.equal(documentName("# just a comment", 2), "document 3");
});

test("named documents survive a round trip through one text, --- inside a document included", () => {
  const documents = [
    { name: "params: limits", text: "kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n" },
    { name: "policy: p", text: "kind: ValidatingAdmissionPolicy\n" },
  ];
  assert.deepEqual(splitNamed(joinNamed(documents)), documents);
  assert.deepEqual(splitNamed("kind: Namespace\nmetadata:\n  name: x\n").map((d) => d.name), ["namespace: x"]);
});
