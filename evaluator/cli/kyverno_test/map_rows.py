"""MutatingAdmissionPolicy rows (`isMutatingAdmissionPolicy`, or a result naming a MutatingAdmissionPolicy), as
the Kyverno CLI evaluates them (pkg/admissionpolicy/mutate.go), not as the API server would.

The CLI submits every resource as a CREATE. A policy without bindings applies where its matchConstraints
match; with bindings, each binding whose matchResources match (or that has none) applies in turn, each on the
resource the previous one patched, and the last one's response is the row's. Unmet matchConditions give
`skip` ("match conditions aren't met"), applied mutations `pass` ("mutation is successfully applied"); a
mutation error or no match gives no response at all, which `kyverno test` reports as `Not found`. The
patched resource is compared with `patchedResources` as for ClusterPolicy mutate rows. The evaluation itself is
our Kubernetes engine (`evaluator.simulate`), with each candidate rewritten as `vap_rows` does."""

from __future__ import annotations

import copy
from typing import Any

from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.mutate_rows import as_loaded, compared_row
from evaluator.cli.kyverno_test.policy_rows import find_resource
from evaluator.cli.kyverno_test.rows import ERROR, FAILED, Row, no_such_policy, row_for
from evaluator.cli.kyverno_test.vap_rows import MATCH_ALL
from evaluator.k8s.kinds import MUTATING_BINDING, MUTATING_POLICY
from evaluator.policies.kyverno.cli_values import values_from_spec
from evaluator.simulation import simulate

PASSED = "mutation is successfully applied"
NOT_MET = "match conditions aren't met"


def _name(doc: dict) -> str:
    return str((doc.get("metadata") or {}).get("name", ""))


def _candidates(policy: dict, bindings: list[dict]) -> list[tuple[dict, dict]]:
    """(policy, binding) pairs to apply in order, rewritten so the API server's matching gives the CLI's: the
    binding's matchResources (else the policy's matchConstraints, without bindings) as the policy's
    constraints, the binding matching everything."""
    spec: dict[str, Any] = policy.get("spec") or {}
    if bindings:
        pairs = [((b.get("spec") or {}).get("matchResources"), b) for b in bindings]
    else:
        binding = {
            "apiVersion": str(policy.get("apiVersion") or "admissionregistration.k8s.io/v1beta1"),
            "kind": MUTATING_BINDING,
            "metadata": {"name": f"{_name(policy)}-binding"},
            "spec": {"policyName": _name(policy)},
        }
        pairs = [(spec.get("matchConstraints"), binding)]
    out = []
    for match, binding in pairs:
        constraints = copy.deepcopy(match) if isinstance(match, dict) else {}
        if not constraints.get("resourceRules"):
            constraints["resourceRules"] = MATCH_ALL
        new_policy = copy.deepcopy(policy)
        new_policy.setdefault("spec", {})["matchConstraints"] = constraints
        new_binding: dict[str, Any] = copy.deepcopy(binding)
        new_spec: dict[str, Any] = new_binding.setdefault("spec", {})
        new_spec.pop("matchResources", None)
        new_spec["policyName"] = _name(policy)
        out.append((new_policy, new_binding))
    return out


def kyverno_map_result(
    policy: dict, bindings: list[dict], obj: dict, *, namespace_labels: dict | None, params: list[dict], user: dict
) -> tuple[dict | None, dict]:
    """(the CLI's rule response or None when it gives none, the resource after the policy)."""
    namespace = (obj.get("metadata") or {}).get("namespace", "") if obj.get("kind") != "Namespace" else ""
    cluster = list(params)
    if namespace:
        labels = dict(namespace_labels or {})
        cluster.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}})
    response: dict | None = None
    for new_policy, binding in _candidates(policy, bindings):
        documents = [new_policy, binding, *cluster, *_param_list(new_policy, binding, params)]
        request: dict[str, Any] = {"operation": "CREATE", "object": obj, "namespace": namespace, "userInfo": user}
        result = simulate(documents, request, api_validation="report", defaulting=False)
        records = [r for r in result["policies"] if r.get("kind") == MUTATING_POLICY and r["policy"] == _name(policy)]
        outcomes = {r["outcome"] for r in records}
        if not records:
            continue  # the binding does not match: the previous response stays
        if "error" in outcomes:
            response = None  # a mutation failed: the CLI's response for this binding is empty, and it is the last
            continue
        if outcomes <= {"skipped"}:
            if any(r.get("matchedKind") is not None for r in records):
                response = {"rule": _name(policy), "result": "skip", "message": NOT_MET}
            continue
        patched = (result.get("mutation") or {}).get("patchedObject")
        if isinstance(patched, dict):
            obj = patched
        response = {"rule": _name(policy), "result": "pass", "message": PASSED}
    return response, obj


def _selected(param: dict, selector: dict) -> bool:
    from evaluator.k8s.labels import selector_matches

    return selector_matches(selector, (param.get("metadata") or {}).get("labels") or {})


def _param_list(policy: dict, binding: dict, params: list[dict]) -> list[dict]:
    """A paramRef with a selector: the CLI hands the policy every selected param as one list object
    (`params.items`), not one evaluation per param as the API server does. The binding is pointed at a
    param object carrying that list; otherwise nothing to add."""
    ref = (binding.get("spec") or {}).get("paramRef")
    if not isinstance(ref, dict) or not isinstance(ref.get("selector"), dict):
        return []
    selected = [p for p in params if _selected(p, ref["selector"])]
    if not selected:
        return []
    kind = (policy.get("spec") or {}).get("paramKind") or {}
    name = f"{_name(policy)}-selected-params"
    namespace = ref.get("namespace") or (selected[0].get("metadata") or {}).get("namespace") or ""
    binding["spec"]["paramRef"] = {k: v for k, v in ref.items() if k != "selector"} | {"name": name}
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return [
        {"apiVersion": kind.get("apiVersion", "v1"), "kind": kind.get("kind", ""), "metadata": meta, "items": selected}
    ]


def _params(folder: TestFolder, policy: dict) -> list[dict]:
    kind = ((policy.get("spec") or {}).get("paramKind") or {}).get("kind")
    if not kind:
        return []
    docs = list(folder.cluster)
    for name in folder.test.get("paramResources") or []:
        docs += [d for d in read_yaml(folder.base / str(name), []) if isinstance(d, dict)]
    return [d for d in docs if d.get("kind") == kind]


def _checks(folder: TestFolder, policy: dict, bindings: list[dict], doc: dict) -> list[tuple[dict, dict]]:
    obj = as_loaded(doc)
    meta = obj["metadata"]
    values = values_from_spec(folder.values, meta.get("name", ""), meta.get("namespace", ""))
    response, patched = kyverno_map_result(
        policy,
        bindings,
        obj,
        namespace_labels=values.get("namespaceLabels"),
        params=_params(folder, policy),
        user=dict((folder.user or {}).get("userInfo") or {}),
    )
    return [] if response is None else [(response, patched)]


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy_name = str(result.get("policy", "")).split("/")[-1]
    policies = [p for p in folder.policies if p.get("kind") == MUTATING_POLICY and _name(p) == policy_name]
    if not policies:
        return no_such_policy(folder, result, name)
    policy = policies[0]
    bindings = [
        b
        for b in folder.policies
        if b.get("kind") == MUTATING_BINDING and (b.get("spec") or {}).get("policyName") == policy_name
    ]
    if not name:
        checks = [c for d in folder.resources for c in _checks(folder, policy, bindings, d)]
        return compared_row(folder, result, name, [policy], checks, skip_missing=True)
    doc = find_resource(folder.resources, name, str(result.get("kind", "")))
    if doc is None:
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    checks = _checks(folder, policy, bindings, doc)
    if not checks:
        kind, expected = str(result.get("kind", "")), str(result.get("result", ""))
        return Row(str(result.get("policy", "")), "", name, kind, expected, "fail", FAILED, "Not found")
    return compared_row(folder, result, name, [policy], checks)
