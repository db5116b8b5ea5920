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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.policies.kyverno_vpol.cli_test import VpolTest, namespace_from_values, simple_constraints
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs
from evaluator.policies.mutating.schema import schema_for

from .policies import PolicyEntry, compile_all, run_all


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
        return request

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
