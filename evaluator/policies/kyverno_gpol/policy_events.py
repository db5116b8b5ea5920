"""A request for a GeneratingPolicy itself, as Kyverno's background controller answers it (the ClusterPolicy
counterpart is evaluator/policies/kyverno/generate/policy_events.py):
- creating or updating a policy with `evaluation.generateExisting.enabled` generates for every trigger already
  among the documents (each run as a background CREATE of it);
- deleting a policy with `evaluation.synchronize.enabled` deletes the downstream it made (the documents
  labelled managed by kyverno with its policy-name), unless `evaluation.orphanDownstreamOnPolicyDelete.enabled`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.admission.cluster import metadata
from evaluator.policies.kyverno.generate import labels as common

from .engine import ERROR, PASS, SKIP, CompiledGeneratingPolicy, Generated, compile_policy, is_generating_policy


def policy_in(request: Mapping[str, Any]) -> tuple[Mapping[str, Any], str] | None:
    """(the GeneratingPolicy a request creates, updates or deletes, operation) or None."""
    op = str(request.get("operation") or "CREATE")
    obj = request.get("oldObject") if op == "DELETE" else request.get("object")
    return (obj, op) if is_generating_policy(obj) else None


def _entry(compiled: CompiledGeneratingPolicy, event: str, rule: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": compiled.document.get("kind"),
        "apiVersion": compiled.document.get("apiVersion"),
        "policy": compiled.name,
        "namespace": compiled.namespace,
        "event": event,
        "evaluation": compiled.settings(),
        "rules": [],
        "notApplicable": [],
        "generate": [rule],
    }


def deleted(compiled: CompiledGeneratingPolicy, resources: list[Mapping[str, Any]]) -> dict[str, Any]:
    settings = compiled.settings()
    rule: dict[str, Any] = {"rule": compiled.name, "result": SKIP, "objects": []}
    if not settings["synchronize"]:
        rule["message"] = "synchronize is off: downstream is kept"
    elif settings["orphanDownstreamOnPolicyDelete"]:
        rule["message"] = "orphanDownstreamOnPolicyDelete: downstream is kept"
    else:
        want = {common.MANAGED_BY: "kyverno", common.POLICY: compiled.name}
        for doc in resources:
            found = metadata(doc).get("labels")
            if isinstance(found, Mapping) and all(found.get(k) == v for k, v in want.items()):
                rule["objects"].append(
                    {
                        "action": "delete",
                        "role": "downstream",
                        "policy": compiled.name,
                        "rule": compiled.name,
                        "object": dict(doc),
                    }
                )
        rule.update(
            result=PASS, message=f"policy deleted: synchronize deletes its {len(rule['objects'])} downstream object(s)"
        )
    return _entry(compiled, "policyDeleted", rule)


def applied(
    compiled: CompiledGeneratingPolicy,
    resources: list[Mapping[str, Any]],
    run_on: Callable[[CompiledGeneratingPolicy, Mapping[str, Any]], tuple[Generated, list[dict[str, Any]]]],
) -> dict[str, Any] | None:
    """generateExisting: the policy on each existing document; None when the policy does not ask for it."""
    if not compiled.settings()["generateExisting"]:
        return None
    rule: dict[str, Any] = {"rule": compiled.name, "result": SKIP, "message": "", "triggers": 0, "objects": []}
    for doc in resources:
        generated, objects = run_on(compiled, doc)
        if generated.result == ERROR and rule["result"] != ERROR:
            rule.update(result=ERROR, message=generated.message)
        elif generated.result == PASS:
            rule["triggers"] += 1
            rule["result"] = PASS if rule["result"] == SKIP else rule["result"]
        rule["objects"] += objects
    if rule["result"] == PASS:
        rule["message"] = f"generateExisting: generated for {rule['triggers']} existing trigger(s)"
    return _entry(compiled, "policyApplied", rule)


def compile_requested(policy: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> CompiledGeneratingPolicy:
    return compile_policy(policy, exceptions)
