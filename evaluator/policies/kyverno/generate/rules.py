"""A policy's generate rules on one admission request, as Kyverno's webhook and background controller run them
(pkg/engine/background.go `filterRule`, pkg/webhooks/resource/generation/handler.go, generate/controller.go).

Each rule first gets the status Kyverno's background checks give it (what `kyverno test` reports): `pass` when
the new object matches and the preconditions hold, `fail` when only the old object does (an UPDATE that takes
the trigger out of the rule, or a DELETE), `skip` when the preconditions do not hold. Then:
- `pass`: the rule generates for the new object;
- `fail` on a DELETE of a rule that matches DELETE: it generates for the deleted object;
- `fail` otherwise, with `synchronize`: the downstream generated for the trigger is deleted.
A failure while generating makes the rule's result `error` with Kyverno's message; the other rules still run.
"""

from __future__ import annotations

import dataclasses

from .. import conditions
from ..context import ContextError
from ..context_entries import ContextLoader
from ..exceptions import matching_exceptions
from ..match import matches_rule
from ..policy_facts import generate_rules
from . import labels
from .pattern import CREATE, DELETE, DOWNSTREAM, UPDATE, GenerateError, Generation, generate
from .store import Store, kind_of

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"


def event_entry(policy: dict, event: str, rules: list[dict]) -> dict:
    """A policy's result entry for a request that is not one of its triggers (`event` says what it was)."""
    meta = policy.get("metadata") or {}
    return {
        "kind": policy.get("kind", "ClusterPolicy"),
        "policy": str(meta.get("name", "")),
        "namespace": str(meta.get("namespace", "") or "") if policy.get("kind") == "Policy" else "",
        "event": event,
        "rules": [],
        "notApplicable": [],
        "generate": rules,
    }


def run_rules(run, sources: list | None = None) -> list[dict]:
    """Every generate rule of `run.policy` that applies to the request: {"rule", "result", "message",
    "triggerResult", "objects"}. `sources`: the objects the rules may read besides the trigger (`kyverno test`'s
    cloneSourceResource); the project's documents when None."""
    trigger = run.resource if run.operation != "DELETE" else {}
    documents = list(run.offline.documents) if sources is None else [trigger, *sources]
    store = Store([d for d in documents if d])
    out = []
    apply_one = (run.policy.get("spec") or {}).get("applyRules") == "One"
    for rule in generate_rules(run.policy):
        checked = _checked(run, rule)
        if checked is None:
            continue
        status, message = checked
        result = {"rule": rule.get("name", ""), "result": status, "message": message, "triggerResult": status}
        result["objects"] = []
        try:
            result["objects"] = _act(run, rule, status, store)
        except GenerateError as err:
            result.update(result=ERROR, message=str(err), objects=err.objects)
        out.append(result)
        if apply_one and status != SKIP:
            break
    return out


def _old(run) -> dict | None:
    old = run.request.get("oldObject")
    return old if isinstance(old, dict) and old else None


def _checked(run, rule: dict) -> tuple[str, str] | None:
    """filterRule: (status, message), or None when the rule does not apply to the request."""
    name = str(rule.get("name", ""))
    matched = matching_exceptions(run.exceptions, run.policy, name, run.match, run.ctx)
    if matched:
        return SKIP, "rule is skipped due to policy exception " + ", ".join(k for k, _ in matched)
    policy_ns = (run.policy.get("metadata") or {}).get("namespace", "") if run.policy.get("kind") == "Policy" else ""
    new = run.resource if run.operation != "DELETE" else {}
    if matches_rule(rule, dataclasses.replace(run.match, resource=new), policy_ns) is not None:
        old = _old(run)
        if old is not None and matches_rule(rule, dataclasses.replace(run.match, resource=old), policy_ns) is None:
            return FAIL, ""
        return None
    run.ctx.checkpoint()
    try:
        try:
            ContextLoader(run.offline, name).load(run.ctx, rule.get("context") or [])
        except ContextError:
            return None
        try:
            passed, _ = conditions.evaluate_conditions(run.ctx, rule.get("preconditions"))
        except conditions.ConditionError as err:
            return ERROR, f"failed to evaluate conditions: {err}"
        if passed:
            return PASS, ""
        old = _old(run)
        if old is not None:
            set_object(run.ctx, old)
            try:
                passed_old, msg = conditions.evaluate_conditions(run.ctx, rule.get("preconditions"))
            except conditions.ConditionError as err:
                return ERROR, f"failed to evaluate conditions for old resource: {err}"
            if passed_old:
                return FAIL, msg
        return SKIP, ""
    finally:
        run.ctx.restore()


def set_object(ctx, obj: dict) -> None:
    """Context.AddResource: `request.object` becomes `obj` (replaced, not merged)."""
    ctx.set_object(obj)


def _matches_delete(rule: dict) -> bool:
    """webhookutils.MatchDeleteOperation: the rule's match names the DELETE operation."""
    match = rule.get("match") or {}
    blocks = [match.get("resources") or {}] + [
        (f or {}).get("resources") or {} for f in (match.get("any") or []) + (match.get("all") or [])
    ]
    return any("DELETE" in (b.get("operations") or []) for b in blocks)


def _act(run, rule: dict, status: str, store: Store) -> list[dict]:
    if status == PASS:
        return run_generation(run, rule, run.resource, store)
    if status != FAIL:
        return []
    old = _old(run)
    if old is None:
        return []
    if run.operation == "DELETE" and _matches_delete(rule):
        return run_generation(run, rule, old, store)
    if (rule.get("generate") or {}).get("synchronize"):
        return delete_downstream(run, rule, old, store)
    return []


def run_generation(run, rule: dict, trigger: dict, store: Store) -> list[dict]:
    """ApplyGeneratePolicy for one rule and one trigger: its objects. Raises GenerateError(message, objects)."""
    gen = Generation(run.policy, rule, trigger, store, ContextLoader(run.offline, str(rule.get("name", ""))))
    ctx = run.ctx
    ctx.checkpoint()
    try:
        set_object(ctx, trigger)
        try:
            gen.loader.load(ctx, rule.get("context") or [])
        except ContextError as err:
            raise GenerateError(f"failed to load rule level context: {err}", gen.objects) from None
        spec = rule.get("generate") or {}
        try:
            if spec.get("foreach") is not None:
                _foreach(gen, ctx, spec["foreach"])
            else:
                generate(gen, ctx, rule.get("context") or [], rule.get("preconditions"), spec)
        except GenerateError as err:
            raise GenerateError(str(err), gen.objects) from None
    finally:
        ctx.restore()
    return gen.objects


def _foreach(gen: Generation, ctx, entries: list) -> None:
    """generateForeach: each element of each list generates with its own context and preconditions."""
    errors = []
    for i, foreach in enumerate(entries or []):
        try:
            found = ctx.query(str(foreach.get("list", "")))
        except ContextError as err:
            errors.append(f"failed to evaluate {i} foreach list: {err}")
            continue
        elements = found if isinstance(found, list) else [found]
        element_errors = []
        ctx.checkpoint()
        try:
            for index, element in enumerate(elements):
                if element is None:
                    continue
                ctx.reset()
                ctx.add_element(element, index, 0)
                gen.loader.on_foreach_element(ctx, gen.rule, index)
                try:
                    generate(gen, ctx, foreach.get("context") or [], foreach.get("preconditions"), foreach)
                except GenerateError as err:
                    element_errors.append(f"failed to process {index} element: {err}")
        finally:
            ctx.restore()
        if element_errors:
            errors.append(f"failed to process {i} foreach in rule {gen.rule_name}: " + "; ".join(element_errors))
    if errors:
        raise GenerateError("; ".join(errors))


def _downstream_kinds(rule: dict) -> list[tuple[str, str]]:
    spec = rule.get("generate") or {}
    patterns = spec.get("foreach") or [spec]
    kinds = []
    for p in patterns:
        if p.get("kind"):
            kinds.append((str(p.get("apiVersion", "") or ""), str(p["kind"])))
        for text in (p.get("cloneList") or {}).get("kinds") or []:
            kinds.append(kind_of(str(text)))
    return kinds


def delete_downstream(run, rule: dict, trigger: dict, store: Store) -> list[dict]:
    """handleNonPolicyChanges: the synchronized downstream of a trigger that left the rule is deleted. Found by
    Kyverno's labels among the documents; when none carries them, the objects the rule makes for the trigger
    (which Kyverno generated when the trigger was created)."""
    selector = {
        labels.MANAGED_BY: "kyverno",
        **{k: v for k, v in labels.policy_labels(run.policy, "").items() if k != labels.RULE},
        **labels.trigger_labels(trigger),
    }
    found = []
    for api_version, kind in _downstream_kinds(rule):
        hits = [d for d in store.with_labels(selector) if d.get("kind") == kind]
        if not hits:
            by_name = {k: v for k, v in selector.items() if k != labels.TRIGGER_UID}
            by_name[labels.TRIGGER_NAME] = (trigger.get("metadata") or {}).get("name", "")
            hits = [d for d in store.with_labels(by_name) if d.get("kind") == kind]
        found += [d for d in hits if not api_version or d.get("apiVersion") == api_version]
    name = str(rule.get("name", ""))
    if not found:
        try:
            rendered = run_generation(run, rule, trigger, Store(store.documents))
        except GenerateError:
            rendered = []
        found = [o["object"] for o in rendered if o["role"] == DOWNSTREAM and o["action"] in (CREATE, UPDATE)]
    policy = str((run.policy.get("metadata") or {}).get("name", ""))
    return [{"action": DELETE, "role": DOWNSTREAM, "policy": policy, "rule": name, "object": d} for d in found]
