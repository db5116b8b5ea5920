// Unit tests of the page controls' pure parts (node --test): word-start search, unique names, fork titles,
// relative times, CEL share links and the "+ Document" templates.

import test from "node:test";
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { wordMatcher } from "../src/search.js";
import { forkTitle, uniqueName, relativeTime } from "../src/page-controls.js";
import { shareHash, readShareLink } from "../src/cel-share.js";
import { DOCUMENT_TEMPLATES } from "../src/doc-templates.js";

test("search matches whole words from their start, case-insensitively", () => {
  const map = wordMatcher("MAP");
  assert.equal(map("MutatingAdmissionPolicy example, tags: map"), true);
  assert.equal(map("kind: ConfigMap"), false);
  assert.equal(map("mapping of labels"), true);
  assert.equal(wordMatcher("match")("spec.matchConditions"), true);
  assert.equal(wordMatcher("conditions")("matchConditions"), false);
  assert.equal(wordMatcher("replica limit")("Replica limits per namespace"), true);
  assert.equal(wordMatcher("replica quota")("Replica limits per namespace"), false);
  assert.equal(wordMatcher("")("anything"), true);
  assert.equal(wordMatcher("a(b")("x a(b y"), true); // regex characters are literal
});

test("unique names and fork titles", () => {
  assert.equal(uniqueName("policy.yaml", []), "policy.yaml");
  assert.equal(uniqueName("policy.yaml", ["policy.yaml"]), "policy-2.yaml");
  assert.equal(uniqueName("policy.yaml", ["policy.yaml", "policy-2.yaml"]), "policy-3.yaml");
  assert.equal(uniqueName("Makefile", ["Makefile"]), "Makefile-2");
  assert.equal(forkTitle("Replica limits"), "Replica limits (fork)");
  assert.equal(forkTitle("Replica limits (fork)"), "Replica limits (fork)");
  assert.equal(forkTitle(""), "Untitled (fork)");
});

test("relative times read like a person would say them", () => {
  const now = new Date("2026-11-25T15:00:00Z");
  assert.match(relativeTime(new Date("2026-11-25T14:55:00Z"), now), /5 minutes ago/);
  assert.match(relativeTime(new Date("2026-11-23T15:00:00Z"), now), /2 days ago/);
});

test("CEL share links carry the expression and input in the fragment", () => {
  const hash = shareHash("object.spec.replicas <= 5 && 'a&b' == x", "object:\n  spec: {replicas: 3}\nx: a&b\n");
  assert.ok(hash.startsWith("#expr="));
  assert.deepEqual(readShareLink(hash), { expression: "object.spec.replicas <= 5 && 'a&b' == x",
    input: "object:\n  spec: {replicas: 3}\nx: a&b\n" });
  assert.equal(readShareLink(""), null);
  assert.equal(readShareLink("#section"), null);
});

test("every document template is valid YAML with a kind, and the menu covers what the issue asks for", () => {
  const kinds = new Set();
  for (const template of DOCUMENT_TEMPLATES) {
    assert.match(template.name, /\.yaml$/);
    for (const doc of parseAllDocuments(template.text)) {
      assert.deepEqual(doc.errors, [], template.label);
      const value = doc.toJS();
      if (value) kinds.add(value.kind);
    }
  }
  for (const kind of ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConfigMap", "Namespace",
    "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ClusterPolicy", "ClusterRole", "ClusterRoleBinding",
    "CustomResourceDefinition"]) assert.ok(kinds.has(kind), kind);
});
