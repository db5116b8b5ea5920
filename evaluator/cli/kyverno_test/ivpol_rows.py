"""ImageValidatingPolicy rows (`isImageValidatingPolicy`, or an unflagged result whose policy is one), as
`kyverno test` evaluates them (applyImageValidatingPolicies): each resource as a CREATE request (or the
result's / values file's operation) with the test's context (clusterResources, the Context file's images).

A policy with no response on a resource is `pass (Excluded)`, as the CLI's table prints it. A response
that needs the image registry (signature or attestation verification, image data the Context file does
not supply) is reported as skipped with that reason: it is not evaluated offline, never passed or failed.
"""

from __future__ import annotations

import copy

from evaluator.cli.kyverno_test.folder import TestFolder
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, SKIPPED, Row
from evaluator.cli.kyverno_test.vpol_rows import vpol_test
from evaluator.policies.kyverno_ivpol.engine import NOT_EVALUATED
from evaluator.policies.kyverno_ivpol.policies import ImagePolicyEntry, compile_all, respond
from evaluator.policies.kyverno_vpol.cli_test import as_floats, namespace_from_values, namespaced
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs

_ENTRIES: dict[int, tuple[TestFolder, dict[str, ImagePolicyEntry]]] = {}


def _entries(folder: TestFolder) -> dict[str, ImagePolicyEntry]:
    cached = _ENTRIES.get(id(folder))
    if cached is None or cached[0] is not folder:
        if len(_ENTRIES) > 64:
            _ENTRIES.clear()
        vpol = vpol_test(folder)
        docs = vpol.read(folder.test.get("policies") or []) + vpol.read(folder.test.get("exceptions") or [])
        cached = (folder, {e.name: e for e in compile_all(docs)})
        _ENTRIES[id(folder)] = cached
    return cached[1]


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy = str(result.get("policy", "")).split("/")[-1]
    expected = str(result.get("result", ""))
    kind = str(result.get("kind", ""))
    rule = str(result.get("rule") or "")

    def row(actual: str, status: str, message: str) -> Row:
        return Row(policy, rule, name, kind, expected, actual, status, message)

    entry = _entries(folder).get(policy)
    if entry is None:
        return row("missing", ERROR, f"no ImageValidatingPolicy named {policy!r} in the test's policies")
    vpol = vpol_test(folder)
    doc = vpol.find(name) if name else None
    if doc is None:
        return row("missing", ERROR, f"resource {name or '(none named)'} is not in the test's resources")
    obj = as_floats(copy.deepcopy(dict(doc)))
    meta = obj.setdefault("metadata", {})
    if not meta.get("namespace") and namespaced(obj, vpol.crd_scopes):
        meta["namespace"] = "default"
    globals_ = vpol.values.get("globalValues") or {}
    operation = result.get("operation") or globals_.get("request.operation") or "CREATE"
    request: dict = {"operation": operation}
    request["oldObject" if operation == "DELETE" else "object"] = obj
    if operation == "UPDATE":
        request["oldObject"] = copy.deepcopy(obj)
    if vpol.user:
        request["userInfo"] = vpol.user.get("userInfo") or {}
    namespace = meta.get("namespace") or ""
    ns_obj = namespace_from_values(vpol.values, namespace) if namespace else None
    inputs = kubernetes_inputs(
        request, context=vpol.context, namespaces={namespace: ns_obj} if ns_obj else {}, namespace_object=ns_obj
    )
    response = respond(entry, inputs)
    if response is None:
        return row("pass", EXCLUDED, "pass (Excluded)")
    if response.status == NOT_EVALUATED:
        return row(NOT_EVALUATED, SKIPPED, response.message)
    status = OK if response.status == expected else FAILED
    return row(response.status, status, response.message)
