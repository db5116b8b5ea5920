"""Changes to objects that are not triggers but that synchronized generate rules watch, as Kyverno's webhook
hands them to its background controller (pkg/webhooks/resource/generation/handler.go `handleNonTrigger`):
- a downstream (labelled `managed-by: kyverno` with its policy and rule) that is edited or deleted is put back
  as the rule makes it for its trigger;
- a clone source that is edited updates the downstream cloned from it; one that is deleted takes that
  downstream with it.
Triggers are found among the documents: those the rule applies to as a background CREATE."""

from __future__ import annotations

from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS

from . import labels
from .pattern import CREATE, DELETE, DOWNSTREAM, UPDATE
from .rules import event_entry, PASS, generate_rules, run_rules
from .store import kind_of


def _ident(obj: dict) -> tuple:
    meta = obj.get("metadata") or {}
    return obj.get("kind"), meta.get("namespace") or "", meta.get("name") or ""


def _synchronized(policy: dict) -> list[dict]:
    return [r for r in generate_rules(policy) if (r.get("generate") or {}).get("synchronize")]


def _only(policy: dict, rules: list[dict]) -> dict:
    return {**policy, "spec": {**(policy.get("spec") or {}), "rules": rules}}


def _managed(doc: dict) -> bool:
    return ((doc.get("metadata") or {}).get("labels") or {}).get(labels.MANAGED_BY) == "kyverno"


def for_triggers(policy_run, policy: dict, documents: list, values: dict, exceptions: list, keep) -> list[dict]:
    """Each rule of `policy` run for every trigger among `documents`; the objects `keep` picks, per rule."""
    per_rule: dict[str, dict] = {}
    for doc in documents:
        if doc.get("kind") in KYVERNO_POLICY_KINDS or _managed(doc):
            continue
        ns = (doc.get("metadata") or {}).get("namespace", "")
        run = policy_run(policy, {"operation": "CREATE", "object": doc, "namespace": ns}, documents, values, exceptions)
        for result in run_rules(run):
            kept = [o for o in result["objects"] if keep(o)]
            if result["result"] != PASS or not kept:
                continue
            entry = per_rule.setdefault(result["rule"], {"rule": result["rule"], "result": PASS, "message": ""})
            entry.setdefault("objects", []).extend(kept)
    return list(per_rule.values())


def non_trigger_events(policy_run, policies: list, request: dict, documents: list, values: dict, exceptions: list):
    """The generate results an UPDATE or DELETE of a downstream or of a clone source leads to."""
    op = request.get("operation") or "CREATE"
    old = request.get("oldObject")
    if op not in ("UPDATE", "DELETE") or not isinstance(old, dict) or not old:
        return []
    new = request.get("object") if op == "UPDATE" else None
    ident = _ident(old)
    after = [d for d in documents if isinstance(d, dict) and _ident(d) != ident] + ([new] if new else [])
    old_labels = (old.get("metadata") or {}).get("labels") or {}
    out = []
    for policy in policies:
        rules = _synchronized(policy)
        if not rules:
            continue
        if _managed(old) and old_labels.get(labels.POLICY):
            if labels.policy_labels(policy, "")[labels.POLICY] != old_labels.get(labels.POLICY):
                continue
            mine = [r for r in rules if r.get("name") == old_labels.get(labels.RULE)]
            results = for_triggers(
                policy_run,
                _only(policy, mine),
                after,
                values,
                exceptions,
                lambda o: o["role"] == DOWNSTREAM and _ident(o["object"]) == ident,
            )
            event = "downstreamChanged"
        else:
            mine = [r for r in rules if _clones_kind(r, str(old.get("kind", "")))]
            if not mine:
                continue
            source = {"kind": ident[0], "namespace": ident[1], "name": ident[2]}
            keep = lambda o: o["role"] == DOWNSTREAM and o.get("source") == source  # noqa: E731
            if new is not None:
                results = for_triggers(policy_run, _only(policy, mine), after, values, exceptions, keep)
            else:
                unmanaged = [d for d in documents if isinstance(d, dict) and not _managed(d)]
                results = for_triggers(policy_run, _only(policy, mine), unmanaged, values, exceptions, keep)
                _as_deletes(results, documents)
            event = "sourceChanged"
        if results:
            out.append(event_entry(policy, event, results))
    return out


def _clones_kind(rule: dict, kind: str) -> bool:
    spec = rule.get("generate") or {}
    for pattern in spec.get("foreach") or [spec]:
        if (pattern.get("clone") or {}).get("name") and pattern.get("kind") == kind:
            return True
        if any(kind_of(str(k))[1] == kind for k in (pattern.get("cloneList") or {}).get("kinds") or []):
            return True
    return False


def _as_deletes(results: list[dict], documents: list) -> None:
    """A deleted source: the downstream cloned from it goes (the copy in the documents when there is one)."""
    existing = {_ident(d): d for d in documents if isinstance(d, dict)}
    for result in results:
        result["objects"] = [
            {**o, "action": DELETE, "object": existing.get(_ident(o["object"]), o["object"])}
            for o in result["objects"]
            if o["action"] in (CREATE, UPDATE)
        ]
