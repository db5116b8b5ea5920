"""`kyverno test` rows for ValidatingPolicies (results flagged `isValidatingPolicy`, or unflagged results
whose policy is a ValidatingPolicy), built and scored as the CLI does (cmd/cli/kubectl-kyverno: test
command + policy processor):

* resources are picked by name (or namespace/name); a result without resources checks every resource and
  payload of the test; namespaced kinds without a namespace get `default`; numbers become doubles;
* the result's `rule` is ignored: every rule response of every compiled variant (policy + autogen) with the
  policy's name counts; a variant that does not match is dropped when its constraints are "simple" (one
  resourceRule, no selectors, excludes or resourceNames) and kept empty otherwise; no rule response at all
  is `pass (Excluded)` when an empty response was kept, else `fail (Not found)`;
* JSON-mode policies see the whole resource (or a `jsonPayloads` document) as `object`; Kubernetes-mode
  policies are not run on payloads;
* the context file answers resource.Get/List and image.GetMetadata, `clusterResources` join the lookups,
  `apiCallResponses` answer http.Get/Post, `globalContextEntries` answer globalContext.Get.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.k8s.restmapping import builtin_mapper

from .context import OfflineContext, context_file_data, http_mock_index
from .engine import RuleResponse, evaluate, evaluate_authz
from .inputs import json_inputs, kubernetes_inputs
from .policies import PolicyEntry, compile_all


@dataclass
class VpolRow:
    policy: str
    resource: str
    kind: str
    expected: str
    actual: str
    ok: bool
    message: str = ""


def as_floats(value: Any) -> Any:
    """kyverno test converts every number of the test's resources to float64."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [as_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: as_floats(v) for k, v in value.items()}
    return value


def simple_constraints(constraints: Any) -> bool:
    """The CLI's `hasSelector`: exactly one resourceRule, no selectors, excludes or resourceNames."""
    if not isinstance(constraints, Mapping):
        return False
    for key in ("namespaceSelector", "objectSelector"):
        selector = constraints.get(key) or {}
        if selector.get("matchLabels") or selector.get("matchExpressions"):
            return False
    rules = constraints.get("resourceRules") or []
    return not constraints.get("excludeResourceRules") and len(rules) == 1 and not rules[0].get("resourceNames")


def responses_for(entry: PolicyEntry, inputs: Any) -> tuple[list[RuleResponse], bool]:
    """(rule responses of every variant that matched, whether an empty response was kept)."""
    rules: list[RuleResponse] = []
    kept_empty = False
    for compiled in entry.compiled:
        responses = evaluate(compiled, inputs)
        if responses is None:
            kept_empty = kept_empty or not simple_constraints(compiled.match_constraints)
            continue
        rules.extend(responses)
    return rules, kept_empty


def json_responses(entry: PolicyEntry, payload: Any, context: OfflineContext) -> list[RuleResponse]:
    return evaluate(entry.compiled[0], json_inputs(payload, context=context), check_match=False) or []


def payload_responses(
    entry: PolicyEntry, payload_type: str, payload: Any, context: OfflineContext
) -> list[RuleResponse]:
    """A payload reaches JSON-mode policies (json payloads) or the authz policies of its kind (http, envoy)."""
    if payload_type == "json":
        return json_responses(entry, payload, context) if entry.mode == "JSON" else []
    if entry.mode.lower() == payload_type:
        return [evaluate_authz(entry.compiled[0], payload)]
    return []


def score(rules: list[RuleResponse], kept_empty: bool, expected: str) -> tuple[bool, str, str]:
    """(ok, actual, message) as kyverno test prints the row."""
    if not rules:
        if kept_empty:
            return True, "pass", "pass (Excluded)"
        return expected == "skip", "skip" if expected == "skip" else "fail", "Not found"
    actual = ",".join(sorted({r.status for r in rules}))
    message = "; ".join(r.message for r in rules if r.status != "pass")
    return all(r.status == expected for r in rules), actual, message


def namespaced(doc: Mapping[str, Any], crd_scopes: Mapping[tuple[str, str], bool]) -> bool:
    api_version = str(doc.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    if (group, doc.get("kind")) in crd_scopes:
        return crd_scopes[(group, str(doc.get("kind")))]
    info = builtin_mapper().resource_for(api_version, str(doc.get("kind") or ""))
    return info.namespaced if info is not None else True


def _global_value(entry: Mapping[str, Any], read: Callable[[list[str]], list[dict]]) -> Any:
    if "resources" in entry:
        return entry["resources"]
    if entry.get("resourceFiles"):
        return read(entry["resourceFiles"])
    data = entry.get("data")
    if entry.get("projections"):
        from jmespath import search

        return {p["name"]: search(p["path"], data) for p in entry["projections"]}
    return data


def _crd_key(spec: Mapping[str, Any]) -> tuple[Any, Any]:
    """(group, kind) of a CRD's spec, as the CLI's lookups key it."""
    return spec.get("group", ""), (spec.get("names") or {}).get("kind", "")


def namespace_from_values(values: Mapping[str, Any], namespace: str) -> dict | None:
    found = None
    for sel in values.get("namespaceSelector") or []:
        if isinstance(sel, Mapping) and sel.get("name") == namespace:
            found = {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": namespace, "labels": dict(sel.get("labels") or {})},
            }
    for ns in values.get("namespaces") or []:
        if isinstance(ns, Mapping) and (ns.get("metadata") or {}).get("name") == namespace:
            found = dict(ns)
    return found


class VpolTest:
    """One kyverno-test.yaml's ValidatingPolicy side: its documents read once."""

    def __init__(self, test: Mapping[str, Any], base: Path, read: Callable[[list[str]], list[dict]]):
        self.test, self.base, self.read = test, base, read
        docs = read(test.get("policies") or []) + read(test.get("exceptions") or [])
        self.entries = {e.name: e for e in compile_all(docs)}
        self.resources = read(test.get("resources") or [])
        self.payloads = self._payloads()
        crds = [
            d.get("spec") or {}
            for d in read(test.get("resources") or []) + read(test.get("clusterResources") or [])
            if d.get("kind") == "CustomResourceDefinition"
        ]
        self.crd_scopes = {_crd_key(spec): spec.get("scope") != "Cluster" for spec in crds}
        self.context = self._context(crds)
        self.values = self._values()
        user = read([test["userinfo"]]) if test.get("userinfo") else []
        self.user = user[0] if user else None

    def _payloads(self) -> list[tuple[str, str, Any]]:
        """(file, type, document) of the test's JSON, HTTP and Envoy payloads."""
        named = [(n, "json") for n in self.test.get("jsonPayloads") or []]
        if self.test.get("jsonPayload"):
            named.append((self.test["jsonPayload"], "json"))
        named += [(n, "http") for n in self.test.get("httpPayloads") or []]
        named += [(n, "envoy") for n in self.test.get("envoyPayloads") or []]
        out = []
        for name, kind in named:
            try:
                out.append((name, kind, json.loads((self.base / name).read_text())))
            except (OSError, ValueError):
                out.extend((name, kind, d) for d in self.read([name]))
        return out

    def _context(self, crds: list[Mapping[str, Any]]) -> OfflineContext:
        """The context file's resources and images, then the cluster resources and the test's resources."""
        resources, images = [], {}
        if self.test.get("context"):
            for doc in self.read([self.test["context"]]):
                found, found_images = context_file_data(doc.get("spec") or {})
                resources.extend(found)
                images.update(found_images)
        if self.test.get("clusterResources"):
            resources.extend(self._cluster_resources())
        global_values = {
            e["name"]: _global_value(e, self.read)
            for e in self.test.get("globalContextEntries") or []
            if isinstance(e, Mapping) and "name" in e
        }
        return OfflineContext(
            resources=resources,
            images=images,
            global_values=global_values,
            http_mocks=http_mock_index(self.test.get("apiCallResponses")),
            crd_plurals={_crd_key(spec): (spec.get("names") or {}).get("plural", "") for spec in crds},
        )

    def _cluster_resources(self) -> list[Any]:
        """clusterResources documents (a ClusterResource lists several), then the test's resources."""
        resources: list[Any] = []
        for doc in self.read(self.test["clusterResources"]):
            if doc.get("kind") == "ClusterResource":
                resources.extend((doc.get("spec") or {}).get("resources") or [])
            else:
                resources.append(doc)
        return resources + self.resources

    def _values(self) -> dict:
        values = dict(self.test.get("values") or {})
        if self.test.get("variables"):
            docs = self.read([self.test["variables"]])
            if docs:
                values = docs[0].get("spec", docs[0]) if docs[0].get("kind") == "Values" else docs[0]
        return values

    def rows(self, result: Mapping[str, Any]) -> list[VpolRow]:
        name = str(result.get("policy", "")).split("/")[-1]
        expected = str(result.get("result", ""))
        entry = self.entries.get(name)
        if entry is None:
            return [VpolRow(name, "", result.get("kind", ""), expected, "missing", False, "policy not found")]
        names = list(result.get("resources") or []) + ([result["resource"]] if result.get("resource") else [])
        out = []
        if not names:
            targets = [(self.name_of(d), d) for d in self.resources] + [(n, None) for n, _, _ in self.payloads]
        else:
            targets = [(n, self.find(n)) for n in names]
        for label, doc in targets:
            if doc is None:
                found = next(((k, p) for n, k, p in self.payloads if n == label), None)
                if found is None:
                    out.append(
                        VpolRow(name, label, result.get("kind", ""), expected, "missing", False, "resource not found")
                    )
                    continue
                kind, payload = found
                ok, actual, message = score(payload_responses(entry, kind, payload, self.context), False, expected)
            else:
                ok, actual, message = self._resource_row(entry, doc, result)
            out.append(VpolRow(name, label, result.get("kind", ""), expected, actual, ok, message))
        return out

    @staticmethod
    def name_of(doc: Mapping[str, Any]) -> str:
        return str((doc.get("metadata") or {}).get("name", ""))

    def find(self, name: str) -> dict | None:
        ns, _, short = name.rpartition("/")
        for doc in self.resources:
            meta = doc.get("metadata") or {}
            if meta.get("name") == short and (not ns or ns == (meta.get("namespace") or "default")):
                return doc
        return None

    def _resource_row(
        self, entry: PolicyEntry, doc: Mapping[str, Any], result: Mapping[str, Any]
    ) -> tuple[bool, str, str]:
        expected = str(result.get("result", ""))
        obj = self.prepared(doc)
        if entry.mode in ("HTTP", "Envoy"):  # authz policies run on their payloads only
            return score([], False, expected)
        if entry.mode == "JSON":
            return score(json_responses(entry, obj, self.context), False, expected)
        rules, kept_empty = responses_for(entry, self.inputs_for(obj, result))
        return score(rules, kept_empty, expected)

    def prepared(self, doc: Mapping[str, Any]) -> dict:
        """A test resource as the CLI reads it: numbers as doubles, `default` namespace when namespaced."""
        obj = as_floats(copy.deepcopy(dict(doc)))
        meta = obj.setdefault("metadata", {})
        if not meta.get("namespace") and namespaced(obj, self.crd_scopes):
            meta["namespace"] = "default"
        return obj

    def inputs_for(self, obj: dict, result: Mapping[str, Any]) -> Any:
        """The admission request the CLI builds for a (prepared) resource: the result's or the values'
        operation (CREATE by default), the test's user, the namespace from the values."""
        meta = obj.get("metadata") or {}
        globals_ = self.values.get("globalValues") or {}
        operation = result.get("operation") or globals_.get("request.operation") or "CREATE"
        namespace = meta.get("namespace") or ""
        request: dict[str, Any] = {"operation": operation}
        if operation == "DELETE":
            request["oldObject"] = obj
        else:
            request["object"] = obj
        if operation == "UPDATE":
            request["oldObject"] = copy.deepcopy(obj)
        if self.user:
            request["userInfo"] = self.user.get("userInfo") or {}
        ns_obj = namespace_from_values(self.values, namespace) if namespace else None
        return kubernetes_inputs(
            request, context=self.context, namespaces={namespace: ns_obj} if ns_obj else {}, namespace_object=ns_obj
        )
