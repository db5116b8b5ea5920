"""`kyverno test` rows for DeletingPolicies (results flagged `isDeletingPolicy`), as the CLI's
applyDeletingPolicies scores them: every resource (and JSON payload) of the test runs through every deleting
policy; a selected resource whose conditions all hold is `pass` ("resource matched"), one whose condition is
false (or that a PolicyException spares) is `fail` ("resource did not match"), an evaluation error is
`error`; a resource the matchConstraints do not select gives no response (the row is `Not found`). A JSON
payload has no apiVersion/kind: it skips matching. Resources, context, values and namespaces are read as
for ValidatingPolicies (`kyverno_vpol.cli_test.VpolTest`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from evaluator.admission.cluster import name_of
from evaluator.policies.kyverno_vpol.cli_test import (
    VpolRow,
    VpolTest,
    as_floats,
    namespace_from_values,
    namespaced,
    score,
)
from evaluator.policies.kyverno_vpol.engine import RuleResponse

from .dry_run import is_deleting_policy
from .engine import DELETE, ERROR, NOT_SELECTED, CompiledDeletingPolicy, compile_policy, evaluate

_STATUS = {DELETE: ("pass", "resource matched"), ERROR: ("error", "")}


class DpolTest:
    """One kyverno-test.yaml's DeletingPolicy side, on top of its ValidatingPolicy reading."""

    def __init__(self, vpol: VpolTest):
        self.vpol = vpol
        docs = vpol.read(vpol.test.get("policies") or []) + vpol.read(vpol.test.get("exceptions") or [])
        exceptions = [d for d in docs if d.get("kind") == "PolicyException"]
        self.policies = {name_of(d): compile_policy(d, exceptions) for d in docs if is_deleting_policy(d)}

    def rows(self, result: Mapping[str, Any]) -> list[VpolRow]:
        name = str(result.get("policy", "")).split("/")[-1]
        expected = str(result.get("result", ""))
        kind = str(result.get("kind", ""))
        compiled = self.policies.get(name)
        if compiled is None:
            return [VpolRow(name, "", kind, expected, "missing", False, "policy not found")]
        names = [str(n) for n in result.get("resources") or []] + (
            [str(result["resource"])] if result.get("resource") else []
        )
        if names:
            targets: list[tuple[str, Any]] = [(n, self.vpol.find(n)) for n in names]
        else:
            targets = [(self.vpol.name_of(d), d) for d in self.vpol.resources]
            targets += [(n, p) for n, k, p in self.vpol.payloads if k == "json"]
        out = []
        for label, doc in targets:
            if doc is None:
                out.append(VpolRow(name, label, kind, expected, "missing", False, "resource not found"))
                continue
            ok, actual, message = score(self._responses(compiled, doc), False, expected)
            out.append(VpolRow(name, label, kind, expected, actual, ok, message))
        return out

    def _responses(self, compiled: CompiledDeletingPolicy, doc: Mapping[str, Any]) -> list[RuleResponse]:
        obj = as_floats(copy.deepcopy(dict(doc)))
        if obj.get("apiVersion") and obj.get("kind"):
            meta = obj.setdefault("metadata", {})
            if not meta.get("namespace") and namespaced(obj, self.vpol.crd_scopes):
                meta["namespace"] = "default"
        namespaces = {}
        namespace = str((obj.get("metadata") or {}).get("namespace") or "") if isinstance(obj, dict) else ""
        for ns in filter(None, (namespace, str((obj.get("metadata") or {}).get("name") or ""))):
            found = namespace_from_values(self.vpol.values, ns)
            if found is not None:
                namespaces[ns] = found
        verdict = evaluate(compiled, obj, self.vpol.context, namespaces, known_only=True)
        if verdict.result == NOT_SELECTED:
            return []
        status, message = _STATUS.get(verdict.result, ("fail", "resource did not match"))
        return [RuleResponse(compiled.name, status, message or verdict.reason)]
