// valueAt: the value behind a defaulted field's path, as the result card shows it.
import test from "node:test";
import assert from "node:assert/strict";
import { valueAt } from "../src/field-path.js";

const OBJECT = { spec: { replicas: 1, template: { spec: { containers: [{ name: "a" }, { imagePullPolicy: "Always" }] } } },
  metadata: { labels: { "kubernetes.io/metadata.name": "team" } } };

test("dotted fields, list indexes and quoted keys", () => {
  assert.equal(valueAt(OBJECT, "spec.replicas"), 1);
  assert.equal(valueAt(OBJECT, "spec.template.spec.containers[1].imagePullPolicy"), "Always");
  assert.equal(valueAt(OBJECT, "metadata.labels['kubernetes.io/metadata.name']"), "team");
});

test("a path that leads nowhere is undefined, never an exception", () => {
  assert.equal(valueAt(OBJECT, "spec.replicas.x"), undefined);
  assert.equal(valueAt(OBJECT, "spec.template.spec.containers[5].name"), undefined);
  assert.equal(valueAt(null, "spec"), undefined);
});
