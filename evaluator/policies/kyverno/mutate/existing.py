"""Mutate-existing rules (`mutate.targets`): the targets resolved among the given documents and each one
patched, as Kyverno's background controller and `kyverno test` (with `targetResources`) do it
(handlers/mutation/mutate_existing.go, load_targets.go).

Each target spec has its variables substituted from the trigger's context, then selects documents by
apiVersion and kind, namespace and name (wildcards; a namespaced Policy only reaches its own namespace) and
label selector. For each target: `target` in the context, its own context entries and preconditions, then the
rule's patch (or foreach) on it. The trigger itself is not changed.
"""

from __future__ import annotations

from typing import Any, Callable

from evaluator.k8s.labels import selector_matches

from .. import conditions, wildcard
from ..context import Context, ContextError
from ..context_entries import ContextLoader
from ..rule_validator import ERROR, SKIP
from ..variables import SubstitutionError, substitute_all
from .patchers import Outcome

# (target, its outcome) of each target a rule reached; an error before any target has target None
TargetOutcome = tuple[Any, Outcome]


def _selects(spec: dict, doc: dict, namespace: str) -> bool:
    meta = doc.get("metadata") or {}
    if spec.get("apiVersion") and doc.get("apiVersion") != spec["apiVersion"]:
        return False
    if doc.get("kind") != spec.get("kind"):
        return False
    ns_pattern, name_pattern = namespace, str(spec.get("name") or "")
    ns, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
    if ns_pattern and not wildcard.match(ns_pattern, ns):
        return False
    if name_pattern and not wildcard.match(name_pattern, name):
        return False
    selector = spec.get("selector")
    return selector is None or selector_matches(selector, meta.get("labels") or {})


def find_targets(specs: list, ctx: Context, documents: list[dict], policy_namespace: str) -> tuple[list, list[str]]:
    """[(document, the target spec it came from)], and the errors of specs that could not be resolved."""
    found: list[tuple[dict, dict]] = []
    errors: list[str] = []
    for i, spec in enumerate(specs or []):
        selector = {k: v for k, v in spec.items() if k not in ("context", "preconditions")}
        try:
            resolved: Any = substitute_all(ctx, selector)
        except SubstitutionError as err:
            errors.append(f"failed to substitute variables in target[{i}]: {err}")
            continue
        namespace = policy_namespace or str(resolved.get("namespace") or "")
        found += [(doc, spec) for doc in documents if isinstance(doc, dict) and _selects(resolved, doc, namespace)]
    return found, errors


def mutate_targets(
    rule: dict,
    ctx: Context,
    loader: ContextLoader,
    documents: list[dict],
    policy_namespace: str,
    patch_one: Callable[[dict], Outcome],
) -> list[TargetOutcome]:
    """Every target's outcome; `patch_one(target)` runs the rule's patch with `target` in the context."""
    targets, errors = find_targets((rule.get("mutate") or {}).get("targets") or [], ctx, documents, policy_namespace)
    out: list[TargetOutcome] = [(None, (ERROR, None, message)) for message in errors]
    for doc, spec in targets:
        ctx.put("target", doc)
        try:
            loader.load(ctx, spec.get("context") or [])
        except ContextError as err:
            out.append((doc, (ERROR, doc, f"failed to load context: {err}")))
            continue
        try:
            passed, message = conditions.evaluate_conditions(ctx, spec.get("preconditions"))
        except conditions.ConditionError as err:
            out.append((doc, (ERROR, doc, f"failed to evaluate preconditions: {err}")))
            continue
        if not passed:
            out.append((doc, (SKIP, doc, "; ".join(p for p in ["preconditions not met", message] if p))))
            continue
        out.append((doc, patch_one(doc)))
    return out
