"""Kyverno mutate rules on an admission request's object: `mutate(policies, request, documents=..., values=...)`.

The policies run in the order given (as `kyverno test` and the webhook take them), each seeing the object the
one before it patched. The result has the MutatingAdmissionPolicy result's shape (`mutation_output`):
`patchedObject`, the JSON Patch from the request's object to it (`patch`, `patchBase64`, `patchType`),
`mutations` (one entry per rule response: policy, rule, result, message, its patch and the object after it),
`errors`, plus `diff` (a unified diff of the object as YAML) and `policies` (per-policy responses).
"""

from __future__ import annotations


import difflib
from typing import Any

import yaml

from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS
from evaluator.policies.mutating.diff import encode_patch, json_patch_between

from ..engine import PolicyRun, _policy_run
from ..tree_copy import deep_copy
from .rules import mutate_rules

__all__ = ["has_mutate_rules", "mutate", "mutate_policy", "unified_diff"]


def has_mutate_rules(policy: Any) -> bool:
    """Whether a Kyverno policy has a rule with a `mutate` block."""
    spec = policy.get("spec") if isinstance(policy, dict) else None
    rules = spec.get("rules") if isinstance(spec, dict) else None
    return isinstance(rules, list) and any(isinstance(r, dict) and r.get("mutate") for r in rules)


def mutate_policy(
    policy: dict,
    request: dict,
    documents: list,
    values: dict,
    exceptions: list,
    targets: list | None = None,
    owned: bool = False,
) -> dict:
    """One policy's mutate responses on `request` (its `object` is the object so far); mutate-existing rules
    run on `targets` when given. The object is copied unless `owned` (the patched object of the policy before,
    which no one changes in place)."""
    resource = (request.get("object") or {}) if owned else deep_copy(request.get("object") or {})
    out: dict[str, Any] = {
        "kind": policy.get("kind", "ClusterPolicy"),
        "policy": (policy.get("metadata") or {}).get("name", ""),
        "namespace": (policy.get("metadata") or {}).get("namespace", "") if policy.get("kind") == "Policy" else "",
        "rules": [],
        "notApplicable": [],
        "patchedObject": resource,
    }
    if request.get("operation") == "DELETE" or not resource:
        return out
    try:
        # the context (a deep copy of the request) is built only once a rule matches: most objects of a
        # batch match few of a policy's rules, and `_policy_run` without it is cheap
        # (mutate_rules sets `request.object` itself, so the context is built without copying it)
        def full_run() -> PolicyRun:
            return _policy_run(policy, request, documents, values, exceptions, object_later=True)

        eager = bool(values.get("variables"))  # a variable that cannot be added fails the policy as before
        if eager:
            run = _policy_run(policy, request, documents, values, exceptions)
        else:
            run = _policy_run(policy, request, documents, values, exceptions, context=False)
        results, not_applicable, patched = mutate_rules(run, resource, targets, None if eager else full_run)
    except Exception as err:  # malformed policy structure: report it, never raise
        out["rules"] = [{"rule": "", "result": "error", "message": f"invalid policy: {type(err).__name__}: {err}"}]
        return out
    out["rules"] = [r.as_dict() for r in results]
    out["notApplicable"] = not_applicable
    out["patchedObject"] = patched
    return out


def unified_diff(
    before: Any, after: Any, labels: tuple[str, str] = ("object", "patchedObject"), sort: bool = False
) -> str:
    """The object before and after as YAML, in unified diff form (empty when equal); `sort` orders the keys
    (for two objects whose key order says nothing)."""
    a = yaml.safe_dump(before, sort_keys=sort, default_flow_style=False).splitlines(keepends=True)
    b = yaml.safe_dump(after, sort_keys=sort, default_flow_style=False).splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, *labels))


def mutate(
    policies: list[dict],
    request: dict,
    *,
    documents: list[dict] = (),
    values: dict | None = None,
    targets: list[dict] | None = None,
    diff: bool = True,
) -> dict:
    """Every Kyverno policy's mutate rules on an AdmissionRequest dict, in order; never raises. With `targets`
    (the documents mutate-existing rules may patch) those rules run too, as `kyverno test` runs them.
    `diff=False` leaves out the YAML diff (`diff` is None): a batch run reads only the verdict and patches."""
    from .. import admission_inputs

    request, values, docs, exceptions = admission_inputs(policies, request, documents, values)
    original = request.get("object")
    current = request
    per_policy = []
    for policy in policies:
        if not isinstance(policy, dict) or policy.get("kind") not in KYVERNO_POLICY_KINDS:
            continue
        if not has_mutate_rules(policy):
            continue
        if current is request and original is not None:
            # one copy of the object for the policies; the patch below is taken from it, as it shares with
            # the patched object what the policies left (the same patch as from `original`, which it equals)
            original = deep_copy(original)
            current = {**request, "object": original}
        result = mutate_policy(policy, current, docs, values, exceptions, targets, owned=current is not request)
        per_policy.append(result)
        if current.get("object") is not None and result["patchedObject"] is not current["object"]:
            current = {**current, "object": result["patchedObject"]}  # (the same request: its context is reused)
    patched = current.get("object")
    patch = json_patch_between(original, patched) if original is not None else []
    mutations = [
        {
            "policy": p["policy"],
            **{k: v for k, v in r.items() if k != "patchedObject"},
            "object": r.get("patchedObject"),
        }
        for p in per_policy
        for r in p["rules"]
    ]
    return {
        "patchedObject": patched,
        "patch": patch,
        "patchBase64": encode_patch(patch) if patch else None,
        "patchType": "JSONPatch" if patch else None,
        "diff": (unified_diff(original, patched) if patch else "") if diff else None,
        "mutations": mutations,
        "errors": [
            {"policy": m["policy"], "rule": m["rule"], "message": m["message"]}
            for m in mutations
            if m["result"] == "error"
        ],
        "policies": per_policy,
    }
