"""`kyverno test` for MutatingPolicies, as the CLI's policy processor runs them (processor/policy_processor.go):
the resource (as loaded, after any MutatingAdmissionPolicy of the test) goes through every MutatingPolicy of
the test in order (engine.Handle, no admission filters), each seeing the object the previous one left.

What a row compares (commands/test/output.go): every rule response of the named policy (a ruleless kind: the
result's `rule` is ignored) with the resource patched by all of them (`PatchedResource`, the original when
nothing applied). A variant with no response is dropped when its matchConstraints are "simple" (the CLI's
hasSelector) and kept empty otherwise; only empty responses give `pass (Excluded)`, none at all `Not found`.
The context file, clusterResources, apiCallResponses, globalContextEntries, values and userinfo are read as for
ValidatingPolicies (`kyverno_vpol.cli_test.VpolTest`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaluator.policies.kyverno_vpol.cli_test import VpolTest, namespace_from_values, simple_constraints
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs
from evaluator.k8s.object_schema import schema_for

from evaluator.cel import to_json as to_plain

from .engine import matches
from .policies import PolicyEntry, compile_all, run_all, run_entry
from .spec import mutate_existing_enabled


@dataclass
class MpolRun:
    """One resource through the test's MutatingPolicies."""

    original: Any
    patched: Any
    results: list[dict[str, Any]] = field(default_factory=list)

    def policy(self, entry: PolicyEntry) -> tuple[list[dict[str, Any]], bool]:
        """(the named policy's rule responses, whether an empty response was kept)."""
        for result in self.results:
            if result["policy"] == entry.name and result["kind"] == entry.document.get("kind"):
                labels = set(result["notApplicable"])
                kept = any(
                    not simple_constraints(c.match_constraints)
                    for c in entry.compiled
                    if (c.variant and f"autogen-{c.variant}" or entry.name) in labels
                )
                return list(result["rules"]), kept
        return [], False


class MpolTest:
    """One kyverno-test.yaml's MutatingPolicy side: its documents read and compiled once."""

    def __init__(self, test: Mapping[str, Any], base: Path, read: Callable[[list[str]], list[dict]]):
        self.vpol = VpolTest(test, base, read)
        docs = read(test.get("policies") or []) + read(test.get("exceptions") or [])
        self.entries = compile_all(docs)
        # mutate-existing targets: also resources the libraries find (the CLI adds them to its fake cluster)
        self.targets = read(test.get("targetResources") or [])
        self.vpol.context.resources.extend(self.targets)
        self.crds = [
            d
            for d in read(test.get("resources") or []) + read(test.get("clusterResources") or [])
            if d.get("kind") == "CustomResourceDefinition"
        ]

    def entry(self, name: str) -> PolicyEntry | None:
        short = name.split("/")[-1]
        return next((e for e in self.entries if e.name == short), None)

    def request(self, obj: dict, result: Mapping[str, Any]) -> dict[str, Any]:
        globals_ = self.vpol.values.get("globalValues") or {}
        operation = result.get("operation") or globals_.get("request.operation") or "CREATE"
        request: dict[str, Any] = {"operation": operation}
        if operation == "DELETE":
            request["oldObject"] = obj
        else:
            request["object"] = obj
        if operation == "UPDATE":
            request["oldObject"] = copy.deepcopy(obj)
        if self.vpol.user:
            request["userInfo"] = self.vpol.user.get("userInfo") or {}
        request.update(self.subresource(obj))
        return request

    def subresource(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """The values' `subresources` entry for the resource's kind: the request is for the parent resource's
        subresource (a Binding is `pods/binding`), as the CLI resolves it."""
        group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
        for entry in self.vpol.values.get("subresources") or []:
            sub = entry.get("subresource") if isinstance(entry, Mapping) else None
            if not isinstance(sub, Mapping) or sub.get("kind") != obj.get("kind"):
                continue
            if (sub.get("group") or "") != group or (sub.get("version") or version) != version:
                continue
            parent, _, name = str(sub.get("name") or "").partition("/")
            gvk = {"group": group, "version": version, "kind": str(obj.get("kind"))}
            return {
                "kind": gvk,
                "resource": {"group": group, "version": version, "resource": parent},
                "subResource": name,
            }
        return {}

    def run(self, obj: dict, result: Mapping[str, Any]) -> MpolRun:
        """`obj` (already loaded as the CLI loads it) through every MutatingPolicy."""
        request = self.request(obj, result)
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        ns_obj = namespace_from_values(self.vpol.values, namespace) if namespace else None
        inputs = kubernetes_inputs(
            request,
            context=self.vpol.context,
            namespaces={namespace: ns_obj} if ns_obj else {},
            namespace_object=ns_obj,
        )
        if inputs.object is None:
            return MpolRun(obj, obj)
        objschema = schema_for(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""), self.crds)
        results, patched = run_all(self.entries, inputs, objschema)
        return MpolRun(obj, patched if patched is not None else obj, results)


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    return f"{namespace}/{name}" if namespace else name


class TargetRun:
    """Mutate-existing: the test's `targetResources` as the CLI patches them for one trigger (an engine with
    no matcher; a policy takes part when mutateExisting is enabled and its target selection picks the target:
    the keys its targetMatchConstraints.expression returns for the trigger, else its targetMatchConstraints
    (or matchConstraints) with every operation)."""

    def __init__(self, test: MpolTest, trigger: dict, result: Mapping[str, Any]):
        self.test = test
        self.request = test.request(trigger, result)
        self.inputs = kubernetes_inputs(self.request, context=test.vpol.context)
        self.trigger = trigger
        self.cel_targets: dict[str, set[str] | None] = {}

    def _expression_targets(self, entry: PolicyEntry) -> set[str] | None:
        """discoverCELTargets: the keys (namespace/name) the policy's target expression returns."""
        from .engine import activation_for, with_variables
        from evaluator.admission import expressions as ex

        if entry.name not in self.cel_targets:
            compiled = entry.compiled[0]
            keys: set[str] | None = None
            if compiled.target_expression is not None and compiled.error is None:
                activation = with_variables(compiled, activation_for(compiled, self.inputs, self.trigger))
                run = ex.run(compiled.target_expression, activation)
                if run.error is None and isinstance(run.value, Mapping):
                    value = to_plain(run.value)
                    items = value.get("items")
                    found = [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else [value]
                    keys = {_key(i) for i in found}
            self.cel_targets[entry.name] = keys
        return self.cel_targets[entry.name]

    def _selects(self, entry: PolicyEntry, target: Mapping[str, Any], target_inputs: Any) -> bool:
        compiled = entry.compiled[0]
        if compiled.target_expression is not None:
            keys = self._expression_targets(entry)
            return keys is not None and _key(target) in keys
        constraints = compiled.target_constraints if (compiled.target_constraints or {}).get("resourceRules") else None
        constraints = dict(constraints or compiled.match_constraints or {})
        constraints["resourceRules"] = [
            dict(rule, operations=["*"]) for rule in constraints.get("resourceRules") or [] if isinstance(rule, Mapping)
        ]
        matched, _ = matches(constraints, target_inputs)
        return matched

    def patch(self, target: dict, wanted: PolicyEntry) -> list[tuple[dict[str, Any], Any]]:
        """The named policy's pass rules, each with the target patched by every selected policy."""
        target_inputs = kubernetes_inputs({"operation": "CREATE", "object": target}, context=self.test.vpol.context)
        objschema = schema_for(str(target.get("apiVersion") or ""), str(target.get("kind") or ""), self.test.crds)
        obj: Any = target
        mine: list[dict[str, Any]] = []
        for entry in self.test.entries:
            if not mutate_existing_enabled(entry.spec) or not self._selects(entry, target, target_inputs):
                continue
            inputs = replace(self.inputs, object=obj)
            result, obj = run_entry(entry, inputs, obj, objschema, target=True, check_match=False)
            if entry is wanted:
                mine = list(result["rules"])
        return [(rule, obj) for rule in mine]
