"""ValidatingAdmissionPolicy rows, as the Kyverno CLI evaluates them (not as the API server would).

The CLI submits every resource as a CREATE. A policy without bindings applies wherever its
matchConstraints match. With bindings, the first binding whose matchResources match (or that has none)
is used, and the policy's own matchConstraints are not consulted. Validation runs like the API server's
validator: unmet matchConditions give `skip`, the first validation error `error`, the first denial
`fail`, else `pass`; no match at all is no response, which `kyverno test` reports as pass (Excluded).
Validation actions play no part. The evaluation itself is our Kubernetes engine (`evaluator.simulate`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from evaluator.cli.kyverno_test.folder import TestFolder
from evaluator.cli.kyverno_test.policy_rows import as_created, find_resource
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, Row, reported, row_for
from evaluator.k8s.kinds import VALIDATING_BINDING, VALIDATING_POLICY
from evaluator.policies.kyverno.cli_values import values_from_spec
from evaluator.simulation import simulate

VAP = VALIDATING_POLICY
BINDING = VALIDATING_BINDING
MATCH_ALL = [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["*"]}]


@dataclass
class Outcome:
    result: str  # pass, fail, error or skip
    message: str = ""
    binding: str | None = None


def _name(doc: dict) -> str:
    return str((doc.get("metadata") or {}).get("name", ""))


def _constraints(match: Any, policy_spec: dict) -> dict:
    """Match criteria as the CLI's matcher reads them: no resourceRules means every resource."""
    constraints = copy.deepcopy(match) if isinstance(match, dict) else {}
    if not constraints.get("resourceRules"):
        constraints["resourceRules"] = MATCH_ALL
    policy_match = policy_spec.get("matchConstraints") or {}
    if "matchPolicy" in policy_match and "matchPolicy" not in constraints:
        constraints["matchPolicy"] = policy_match["matchPolicy"]
    return constraints


def _candidates(policy: dict, bindings: list[dict]) -> list[tuple[dict, dict]]:
    """(policy, binding) pairs to try in order, rewritten so the API server's matching (policy
    matchConstraints, then binding matchResources) gives the CLI's."""
    spec = policy.get("spec") or {}
    pairs = []
    if not bindings:
        bindings = [
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": BINDING,
                "metadata": {"name": f"{_name(policy)}-binding"},
                "spec": {"policyName": _name(policy)},
            }
        ]
        match = spec.get("matchConstraints")
        pairs.append((match, bindings[0]))
    else:
        pairs = [((b.get("spec") or {}).get("matchResources"), b) for b in bindings]
    out = []
    for match, binding in pairs:
        new_policy = copy.deepcopy(policy)
        new_policy.setdefault("spec", {})["matchConstraints"] = _constraints(match, spec)
        new_binding = copy.deepcopy(binding)
        new_spec = new_binding.setdefault("spec", {})
        new_spec.pop("matchResources", None)
        new_spec["policyName"] = _name(policy)
        new_spec["validationActions"] = ["Deny"]
        out.append((new_policy, new_binding))
    return out


def kyverno_vap_result(
    policy: dict,
    bindings: list[dict],
    resource: dict,
    *,
    namespace_labels: dict | None = None,
    params: list[dict] | None = None,
    user_info: dict | None = None,
) -> Outcome | None:
    """The Kyverno CLI's result for `resource` (created) against `policy`; None when nothing matches."""
    obj = as_created(resource)
    namespace = obj["metadata"].get("namespace", "") if obj.get("kind") != "Namespace" else ""
    # the CLI's admission attributes carry no user unless the test gives one
    request: dict[str, Any] = {
        "operation": "CREATE",
        "object": obj,
        "namespace": namespace,
        "userInfo": user_info or {},
    }
    cluster = list(params or [])
    if namespace:
        cluster.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": namespace, "labels": dict(namespace_labels or {})},
            }
        )
    for new_policy, binding in _candidates(policy, bindings):
        # kyverno test evaluates resources as written: no API server decodes (and defaults) them
        result = simulate([new_policy, binding, *cluster], request, api_validation="report", defaulting=False)
        records = [r for r in result["policies"] if r["policy"] == _name(policy) and r["binding"] == _name(binding)]
        outcome = _outcome(records, _name(binding) if bindings else None)
        if outcome is not None:
            return outcome
        policy_records = [r for r in result["policies"] if r["policy"] == _name(policy) and r["outcome"] == "error"]
        if policy_records:
            return Outcome("error", str(policy_records[0].get("error") or ""))
    return None


def _outcome(records: list[dict], binding: str | None) -> Outcome | None:
    for record in records:
        if record["outcome"] == "error" and not record["decisions"]:
            return Outcome("error", str(record.get("error") or ""), binding)
        if record["outcome"] == "skipped":
            if record.get("matchedKind") is None:
                continue  # no match: the CLI gives no response
            return Outcome("skip", str(record.get("skipReason") or "match conditions aren't met"), binding)
        for decision in record["decisions"]:
            if decision["evaluation"] == "error":
                return Outcome("error", str(decision.get("message") or ""), binding)
            if decision["action"] == "deny":
                return Outcome("fail", str(decision.get("message") or ""), binding)
        return Outcome("pass", "", binding)
    return None


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy_name = str(result.get("policy", ""))
    expected = str(result.get("result", ""))
    doc = find_resource(folder.resources, name, str(result.get("kind", "")))
    if doc is None:
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    policies = [p for p in folder.policies if p.get("kind") == VAP and _name(p) == policy_name.split("/")[-1]]
    if not policies:
        return row_for(
            folder,
            result,
            name,
            f"no ValidatingAdmissionPolicy named {policy_name!r} in the test's "
            "policies (kyverno test reports pass (Excluded))",
            EXCLUDED,
            "excluded",
        )
    policy = policies[0]
    bindings = [
        b
        for b in folder.policies
        if b.get("kind") == BINDING and (b.get("spec") or {}).get("policyName") == _name(policy)
    ]
    meta = as_created(doc)["metadata"]
    values = values_from_spec(folder.values, meta.get("name", ""), meta.get("namespace", ""))
    param_kind = ((policy.get("spec") or {}).get("paramKind") or {}).get("kind")
    # loaded as the CLI loads resources: a namespaced object without a namespace is in "default"
    params = [as_created(d) for d in folder.cluster if param_kind and d.get("kind") == param_kind]
    outcome = kyverno_vap_result(
        policy,
        bindings,
        doc,
        namespace_labels=values.get("namespaceLabels"),
        params=params,
        user_info=(folder.user or {}).get("userInfo"),
    )
    if outcome is None:
        return row_for(
            folder,
            result,
            name,
            "no binding or matchConstraints select this resource (kyverno test reports pass (Excluded))",
            EXCLUDED,
            "excluded",
        )
    actual = reported(policy, outcome.result)
    status = OK if actual == expected else FAILED
    return Row(policy_name, "", name, str(result.get("kind", "")), expected, actual, status, outcome.message)
