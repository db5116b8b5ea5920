"""Generate rules acting on a request for the policy itself, as Kyverno's background controller does:
- creating (or updating) a policy whose rule has `generateExisting` (or the policy's older
  `spec.generateExisting`) generates for every trigger already among the documents;
- deleting a policy deletes the downstream its `synchronize` rules made (found by Kyverno's labels among the
  documents), unless the rule sets `orphanDownstreamOnPolicyDelete`."""

from __future__ import annotations

from evaluator.k8s.kinds import KYVERNO_GROUP, KYVERNO_POLICY_KINDS

from . import labels
from .pattern import DELETE, DOWNSTREAM
from .rules import event_entry, ERROR, PASS, SKIP, generate_rules, run_rules
from .store import Store


def _policy_in(request: dict) -> tuple[dict, str] | None:
    op = request.get("operation") or "CREATE"
    obj = request.get("oldObject") if op == "DELETE" else request.get("object")
    if not isinstance(obj, dict) or obj.get("kind") not in KYVERNO_POLICY_KINDS:
        return None
    if not str(obj.get("apiVersion", "")).startswith(KYVERNO_GROUP + "/") or not generate_rules(obj):
        return None
    return obj, op


def policy_events(policy_run, request: dict, documents: list, values: dict, exceptions: list) -> dict | None:
    """The generate result of a request that creates, updates or deletes a policy with generate rules, or None.
    `policy_run(policy, request, documents, values, exceptions)` builds the engine's run for one trigger."""
    found = _policy_in(request)
    if found is None:
        return None
    policy, op = found
    if op == "DELETE":
        return event_entry(policy, "policyDeleted", _deleted(policy, documents))
    results = _existing(policy_run, policy, documents, values, exceptions)
    old = request.get("oldObject")
    if op == "UPDATE" and isinstance(old, dict) and old:
        results += _updated(policy_run, policy, old, documents, values, exceptions, {r["rule"] for r in results})
    return event_entry(policy, "policyApplied", results)


def _updated(policy_run, policy: dict, old: dict, documents: list, values: dict, exceptions: list, done: set):
    """A policy update: a synchronized rule that changed brings its downstream in line (the triggers among the
    documents), one that was removed takes its downstream along (unless it orphans it)."""
    before = {r.get("name"): r for r in generate_rules(old)}
    after = {r.get("name"): r for r in generate_rules(policy)}
    removed = [r for name, r in before.items() if name not in after]
    out = _deleted({**old, "spec": {**(old.get("spec") or {}), "rules": removed}}, documents) if removed else []
    changed = [
        r
        for name, r in after.items()
        if name not in done and (r.get("generate") or {}).get("synchronize") and before.get(name) not in (None, r)
    ]
    if changed:
        from .non_trigger import for_triggers

        only = {**policy, "spec": {**(policy.get("spec") or {}), "rules": changed}}
        keep = lambda o: o["role"] == DOWNSTREAM and o["action"] == "update"  # noqa: E731
        out += for_triggers(policy_run, only, [d for d in documents if isinstance(d, dict)], values, exceptions, keep)
    return out


def _existing(policy_run, policy: dict, documents: list, values: dict, exceptions: list) -> list[dict]:
    """generateExisting: each rule run on each document as a background CREATE of it."""
    spec_flag = bool((policy.get("spec") or {}).get("generateExisting"))
    wanted = [r for r in generate_rules(policy) if spec_flag or (r.get("generate") or {}).get("generateExisting")]
    if not wanted:
        return []
    only = {**policy, "spec": {**(policy.get("spec") or {}), "rules": wanted}}
    store_docs = [d for d in documents if isinstance(d, dict)]
    per_rule: dict[str, dict] = {}
    for doc in store_docs:
        if doc.get("kind") in KYVERNO_POLICY_KINDS:
            continue
        request = {"operation": "CREATE", "object": doc, "namespace": (doc.get("metadata") or {}).get("namespace", "")}
        run = policy_run(only, request, store_docs, values, exceptions)
        for result in run_rules(run):
            _merge(per_rule, result)
    return list(per_rule.values())


def _merge(per_rule: dict[str, dict], result: dict) -> None:
    """One rule's results over all triggers: error wins, then pass; objects add up."""
    name = result["rule"]
    seen = per_rule.setdefault(name, {"rule": name, "result": SKIP, "message": "", "triggers": 0, "objects": []})
    seen["objects"] += result["objects"]
    if result["result"] == PASS:
        seen["triggers"] += 1
    if result["result"] == ERROR and seen["result"] != ERROR:
        seen.update(result=ERROR, message=result["message"])
    elif result["result"] == PASS and seen["result"] == SKIP:
        seen["result"] = PASS


def _deleted(policy: dict, documents: list) -> list[dict]:
    """The downstream each synchronized rule made, deleted unless the rule orphans it."""
    store = Store(documents)
    name = str((policy.get("metadata") or {}).get("name", ""))
    out = []
    for rule in generate_rules(policy):
        spec = rule.get("generate") or {}
        rule_name = str(rule.get("name", ""))
        if not spec.get("synchronize"):
            out.append(
                {"rule": rule_name, "result": SKIP, "message": "synchronize is off: downstream is kept", "objects": []}
            )
            continue
        if spec.get("orphanDownstreamOnPolicyDelete"):
            out.append(
                {
                    "rule": rule_name,
                    "result": SKIP,
                    "message": "orphanDownstreamOnPolicyDelete: downstream is kept",
                    "objects": [],
                }
            )
            continue
        selector = {labels.MANAGED_BY: "kyverno", **labels.policy_labels(policy, rule_name)}
        objects = [
            {"action": DELETE, "role": DOWNSTREAM, "policy": name, "rule": rule_name, "object": d}
            for d in store.with_labels(selector)
        ]
        out.append({"rule": rule_name, "result": PASS, "message": "", "objects": objects})
    return out
