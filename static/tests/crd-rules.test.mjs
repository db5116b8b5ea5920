// Unit tests of CRD rule completion (node --test): the schema at a rule's place and what `self.` selects.

import test from "node:test";
import assert from "node:assert/strict";
import { EditorState } from "@codemirror/state";
import { CompletionContext } from "@codemirror/autocomplete";
import { yamlCompletion } from "../src/yaml-assist.js";
import { celName } from "../src/crd-rules.js";
import { celRanges } from "../src/cel-in-yaml.js";

const CRD = (rules, rootRules = "") => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
${rootRules}        properties:
          spec:
            type: object
            x-kubernetes-validations:
${rules}
            properties:
              replicas: {type: integer}
              max-surge: {x-kubernetes-int-or-string: true}
              namespace: {type: string}
              ports:
                type: array
                items:
                  type: object
                  properties:
                    port: {type: integer}
              labels:
                type: object
                additionalProperties: {type: string}
`;

function labels(text) {
  const pos = text.lastIndexOf("|"); // the cursor (a block scalar's `|` comes before it)
  const doc = text.slice(0, pos) + text.slice(pos + 1);
  const state = EditorState.create({ doc, selection: { anchor: pos } });
  const result = yamlCompletion("document")(new CompletionContext(state, pos, true));
  return result ? result.options.map((o) => o.label) : null;
}

test("celName escapes property names as Kubernetes' CEL does", () => {
  assert.equal(celName("max-surge"), "max__dash__surge");
  assert.equal(celName("a.b/c__d"), "a__dot__b__slash__c__underscores__d");
  assert.equal(celName("namespace"), "__namespace__");
  assert.equal(celName("9lives"), null);
});

test("rule is a CEL key: its value is marked as CEL", () => {
  const text = CRD('            - rule: "self.replicas > 0"');
  const [range] = celRanges(text);
  assert.equal(text.slice(range.from, range.to), "self.replicas > 0");
});

test("self. offers the fields of the schema where the rule is, escaped", () => {
  const offered = labels(CRD('            - rule: "self.|"'));
  for (const name of ["replicas", "max__dash__surge", "__namespace__", "ports", "labels"]) {
    assert.ok(offered.includes(name), `${name} in ${offered}`);
  }
  assert.ok(!offered.includes("apiVersion"), offered); // not the resource's root
});

test("deeper selections: list items and map values", () => {
  assert.ok(labels(CRD('            - rule: "self.ports[0].|"')).includes("port"));
  assert.ok(labels(CRD('            - rule: "self.ports.all(p, oldSelf.ports[1].|"')).includes("port"));
});

test("a rule at the root sees apiVersion, kind and metadata.name", () => {
  const text = CRD("            - rule: self.replicas > 0",
    "        x-kubernetes-validations:\n        - rule: self.metadata.|\n");
  assert.deepEqual(labels(text).slice(0, 2).sort(), ["generateName", "name"]);
  const root = CRD("            - rule: self.replicas > 0", "        x-kubernetes-validations:\n        - rule: self.|\n");
  assert.ok(["apiVersion", "kind", "metadata", "spec"].every((n) => labels(root).includes(n)), labels(root));
});

test("while the rule's quote is still open (the YAML does not parse)", () => {
  assert.ok(labels(CRD('            - rule: "self.|')).includes("replicas"));
});

test("a block scalar rule: the fields of its place too", () => {
  assert.ok(labels(CRD("            - rule: |\n                self.replicas > 0 &&\n                self.|")).includes("ports"));
});
