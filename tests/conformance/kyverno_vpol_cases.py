"""Run one kyverno-vpol conformance case the way `kyverno test` builds its input and scores its row
(tests/data/conformance/kyverno-vpol/README.md, "Read this before scoring")."""

from __future__ import annotations

import copy

from evaluator.policies.kyverno_vpol import autogen
from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.engine import evaluate
from evaluator.policies.kyverno_vpol.inputs import json_inputs, kubernetes_inputs
from evaluator.policies.kyverno_vpol.cli_test import as_floats, simple_constraints as _simple
from evaluator.policies.kyverno_vpol.policies import compile_all

# Cases we do not run, by feature tag, with the reason (reported as skips, never dropped). None today.
UNSUPPORTED_TAGS: dict[str, str] = {}


def context_for(case: dict) -> OfflineContext:
    resources = list(case.get("context_resources") or [])
    if case.get("cluster_resources"):
        resources += case["cluster_resources"] + list(case.get("cluster_test_resources") or [])
    images = {i["image"]: i for i in case.get("context_images") or [] if isinstance(i, dict) and "image" in i}
    mocks = {}
    for entry in case.get("api_call_responses") or []:
        response = entry.get("response") or {}
        body = {"body": response.get("body"), "statusCode": response.get("statusCode") or 200}
        mocks[f"{(entry.get('method') or 'GET').upper()}:{entry.get('url')}"] = body
    crds = {(c["group"], c["kind"]): c["plural"] for c in case.get("crds") or []}
    return OfflineContext(
        resources=resources,
        images=images,
        global_values=dict(case.get("global_context_values") or {}),
        http_mocks=mocks,
        crd_plurals=crds,
    )


def _request(case: dict) -> dict:
    resource = as_floats(copy.deepcopy(case["resource"]))
    if case.get("namespace_defaulted"):
        resource.setdefault("metadata", {})["namespace"] = case.get("effective_namespace") or "default"
    op = case.get("operation") or "CREATE"
    gvr = case.get("resource_gvr") or {}
    group, _, version = resource.get("apiVersion", "").rpartition("/")
    request = {
        "operation": op,
        "kind": {"group": group, "version": version, "kind": resource.get("kind", "")},
        "resource": dict(gvr),
        "namespace": case.get("effective_namespace") or "",
        "name": (resource.get("metadata") or {}).get("name", ""),
    }
    if op == "DELETE":
        request["oldObject"] = resource
    else:
        request["object"] = resource
    if op == "UPDATE":
        request["oldObject"] = copy.deepcopy(resource)
    if case.get("userInfo"):
        request["userInfo"] = case["userInfo"].get("userInfo") or {}
    return request


def run_case(case: dict) -> tuple[bool, str]:
    """(passed, detail)."""
    entries = [e for e in compile_all(case["policies"]) if e.name == case["policy"]]
    if not entries:
        return False, "policy not found"
    entry = entries[0]
    context = context_for(case)
    expect = case["expect"]
    if case.get("payload_type"):
        from evaluator.policies.kyverno_vpol.cli_test import payload_responses

        responses = payload_responses(entry, case["payload_type"], case["resource"], context)
        if not responses:
            return expect == "skip", "policy not run on this payload"
        return _score(responses, False, expect)
    request = _request(case)
    if "go-integration-test" in case["features"] and not _namespace_applies(entry.document, request):
        return expect == "skip", "NamespacedValidatingPolicy of another namespace (webhook predicate)"
    if entry.mode == "JSON":
        obj = request.get("object") or request.get("oldObject")
        responses = evaluate(entry.compiled[0], json_inputs(obj, context=context), check_match=False) or []
        return _score(responses, False, expect)
    ns_obj = case.get("namespace_object")
    namespaces = {}
    if ns_obj:
        namespaces[(ns_obj.get("metadata") or {}).get("name", "")] = ns_obj
    inputs = kubernetes_inputs(request, context=context, namespaces=namespaces, namespace_object=ns_obj)
    rules, kept_empty = [], False
    for compiled in entry.compiled:
        responses = evaluate(compiled, inputs)
        if responses is None:
            if not _simple(compiled.match_constraints):
                kept_empty = True
            continue
        rules.extend(responses)
    return _score(rules, kept_empty, expect)


def _namespace_applies(policy: dict, request: dict) -> bool:
    """The admission webhook's NamespacedPolicy predicate (kyverno test applies no such filter)."""
    if policy.get("kind") != "NamespacedValidatingPolicy":
        return True
    return (policy.get("metadata") or {}).get("namespace", "default") == request.get("namespace")


def _score(rules: list, kept_empty: bool, expect: str) -> tuple[bool, str]:
    if not rules:
        if kept_empty:
            return True, "pass (Excluded)"
        return expect == "skip", "not applicable"
    detail = "; ".join(f"{r.rule or '-'}={r.status}: {r.message}" for r in rules)
    return all(r.status == expect for r in rules), detail


__all__ = ["run_case", "UNSUPPORTED_TAGS", "autogen"]
