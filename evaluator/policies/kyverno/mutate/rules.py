"""A Kyverno policy's mutate rules on the request's object, in policy order, each rule seeing what the one
before it made (pkg/engine/mutation.go, handlers/mutation/mutate_resource.go and common.go).

A rule is matched against the object as patched so far; then its context, preconditions and exceptions
(the validate engine's), then `foreach` or the rule's own patch. After a rule, the context's
`request.object` is the patched object. `applyRules: One` stops after the first rule that patched.
"""

from __future__ import annotations


import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from evaluator.cel.errors import long_number_message
from evaluator.policies.mutating.diff import json_patch_between

from .. import autogen
from ..context import ContextError
from ..context_entries import ContextLoader
from ..engine import PolicyRun
from ..exceptions import matching_exceptions
from ..tree_copy import deep_copy
from ..match import matches_rule
from ..policy_facts import policy_namespace
from ..rule_validator import ERROR, PASS, SKIP, load_and_check_preconditions
from .. import conditions
from ..variables import SubstitutionError, substitute_all
from . import existing
from .patchers import Outcome, apply_mutation


@dataclass
class MutateRuleResult:
    """One rule's response: its status and message, the JSON Patch it made and the object after it."""

    rule: str
    result: str
    message: str
    patches: list = field(default_factory=list)
    patched_object: Any = None
    target: Any = None  # a mutate-existing rule's target after the rule (the trigger is not changed)

    def as_dict(self) -> dict:
        out = {
            "rule": self.rule,
            "result": self.result,
            "message": self.message,
            "patches": self.patches,
            "patchedObject": self.patched_object,
        }
        if self.target is not None:
            out["target"] = self.target
        return out


def _set_object(run: PolicyRun, obj: Any) -> None:
    """AddResource: the context's `request.object` becomes `obj`. Not copied: the objects a policy's mutate
    rules go through are never changed in place (each patch makes a new object, sharing what it leaves)."""
    run.ctx.set_object(obj, copy=False)


def mutate_rules(
    run: PolicyRun,
    resource: dict,
    targets: list[dict] | None = None,
    full_run: Callable[[], PolicyRun] | None = None,
) -> tuple[list[MutateRuleResult], list[str], dict]:
    """(responses of the rules that apply, names of those that do not, the object after the policy).
    Mutate-existing rules run only when `targets` (the documents they may patch) is given. With `full_run`,
    `run` has no context yet: `full_run` builds it when the first rule matches (no rule has patched then)."""
    results: list[MutateRuleResult] = []
    not_applicable: list[str] = []
    apply_one = (run.policy.get("spec") or {}).get("applyRules") == "One"
    if full_run is None:
        _set_object(run, resource)
    for rule in autogen.compute_rules(run.policy, run.match.gvk[2]):
        mutation = rule.get("mutate")
        if not mutation:
            continue
        name = rule.get("name", "")
        match = dataclasses.replace(run.match, resource=resource)
        existing = bool(mutation.get("targets"))
        if (existing and targets is None) or matches_rule(rule, match, policy_namespace(run.policy)) is not None:
            not_applicable.append(name)  # mutate-existing rules do not run on the admission request
            continue
        if full_run is not None:
            run = full_run()
            full_run = None
            _set_object(run, resource)
        if existing:
            results += _existing_rule(run, rule, resource, match, targets or [])
            continue
        run.ctx.checkpoint()
        try:
            status, patched, message = _run_rule(run, rule, resource, match)
        except Exception as err:  # a defect still comes out as this rule's error, the others run
            status, patched = ERROR, resource
            message = long_number_message(err) or f"internal error while mutating with rule {name}: {err}"
        finally:
            run.ctx.restore()
        if status == PASS:
            message = _success_message(patched)
        result = MutateRuleResult(name, status, message, patched_object=patched if status == PASS else resource)
        if status == PASS:
            result.patches = json_patch_between(resource, patched)
            resource = patched
            _set_object(run, resource)  # otherwise the restored checkpoint already holds `resource`
        results.append(result)
        if apply_one and status == PASS:
            break
    return results, not_applicable, resource


def _existing_rule(run: PolicyRun, rule: dict, resource: dict, match: Any, targets: list[dict]) -> list:
    """A mutate-existing rule: one response per target it reached (or the error that stopped it)."""
    name = rule.get("name", "")
    run.ctx.checkpoint()
    try:
        loader = ContextLoader(run.offline, name)
        ctx = run.ctx
        stopped = load_and_check_preconditions(name, ctx, loader, rule.get("context") or [], rule.get("preconditions"))
        if stopped is not None:
            return [MutateRuleResult(name, stopped.status, stopped.message, patched_object=resource)]
        if matching_exceptions(run.exceptions, run.policy, name, match, ctx):
            return [MutateRuleResult(name, SKIP, "rule is skipped due to policy exceptions", patched_object=resource)]

        def patch_one(target: dict) -> Outcome:
            if (rule.get("mutate") or {}).get("foreach"):
                return ForEach(run, rule, loader).mutate(rule["mutate"]["foreach"], target, 0)
            return _rule_patch(run, rule, target)

        outcomes = existing.mutate_targets(rule, ctx, loader, targets, policy_namespace(run.policy), patch_one)
    except Exception as err:  # a defect still comes out as this rule's error
        return [MutateRuleResult(name, ERROR, f"internal error while mutating with rule {name}: {err}", [], resource)]
    finally:
        run.ctx.restore()
    out = []
    for target, (status, patched, message) in outcomes:
        result = MutateRuleResult(name, status, message, patched_object=resource, target=target)
        if status == PASS and target is not None:
            result.message = _success_message(patched)
            result.patches = json_patch_between(target, patched)
            result.target = patched
        out.append(result)
    return out


def _success_message(obj: dict) -> str:
    meta = obj.get("metadata") or {}
    if meta.get("namespace"):
        return f"mutated {obj.get('kind', '')}/{meta.get('name', '')} in namespace {meta['namespace']}"
    return f"mutated {obj.get('kind', '')}/{meta.get('name', '')}"


def _run_rule(run: PolicyRun, rule: dict, resource: dict, match: Any) -> Outcome:
    name = rule.get("name", "")
    loader = ContextLoader(run.offline, name)
    stopped = load_and_check_preconditions(name, run.ctx, loader, rule.get("context") or [], rule.get("preconditions"))
    if stopped is not None:
        return stopped.status, resource, stopped.message
    matched = matching_exceptions(run.exceptions, run.policy, name, match, run.ctx)
    if matched:
        return SKIP, resource, "rule is skipped due to policy exceptions" + ", ".join(k for k, _ in matched)
    mutation = rule.get("mutate") or {}
    if mutation.get("foreach"):
        return ForEach(run, rule, loader).mutate(mutation["foreach"], resource, 0)
    return _rule_patch(run, rule, resource)


def _rule_patch(run: PolicyRun, rule: dict, resource: dict) -> Outcome:
    """mutate.Mutate: the rule's variables substituted, then its patch on `resource`."""
    try:
        substituted: Any = substitute_all(run.ctx, rule)  # SubstituteAllInRule: the whole rule
    except SubstitutionError as err:
        return ERROR, resource, f"variable substitution failed: {err}"
    return apply_mutation(substituted.get("mutate") or {}, resource)


class ForEach:
    """forEachMutator: each list's elements (in `order`; a strategic merge patch walks them last to first by
    default), with per-element context and preconditions, nested foreach, the patch of each element."""

    def __init__(self, run: PolicyRun, rule: dict, loader: ContextLoader) -> None:
        self.run = run
        self.rule = rule
        self.loader = loader

    def mutate(self, entries: list, resource: dict, nesting: int) -> Outcome:
        applied = 0
        ctx = self.run.ctx
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return ERROR, resource, "invalid mutate.foreach: expected a list of foreach entries"
        for entry in entries:
            expression = entry.get("list", "")
            if not isinstance(expression, str):
                return ERROR, resource, f"failed to evaluate list {expression}: the list must be a JMESPath string"
            try:
                found = ctx.query(expression)
            except ContextError as err:
                message = f"failed to evaluate list {expression}: {err}"
                return ERROR, resource, f"{message}: {err}"
            elements = found if isinstance(found, list) else [found]
            status, patched, message = self._elements(entry, elements, resource, nesting)
            if status == ERROR:
                return ERROR, resource, f"failed to mutate elements: {message}"
            if status != SKIP:
                applied += 1
                if status == PASS:
                    resource = patched
                _set_object(self.run, resource)
        return (PASS if applied else SKIP), resource, f"{applied} elements processed"

    def _elements(self, entry: dict, elements: list, resource: dict, nesting: int) -> Outcome:
        ctx = self.run.ctx
        ctx.checkpoint()
        try:
            patched = resource  # the patches make new objects
            reverse = entry.get("patchStrategicMerge") is not None
            if entry.get("order") is not None:
                reverse = entry["order"] == "Descending"
            ordered = list(reversed(elements)) if reverse else elements
            for position, element in enumerate(ordered):
                if element is None:
                    continue
                index = len(ordered) - 1 - position if reverse else position
                ctx.reset()
                ctx.add_element(deep_copy(element), index, nesting)
                self.loader.on_foreach_element(ctx, self.rule, index)
                try:
                    self.loader.load(ctx, entry.get("context") or [])
                except ContextError as err:
                    return ERROR, resource, f"failed to load to mutate.foreach[{index}].context: {err}"
                try:
                    passed, _ = conditions.evaluate_conditions(ctx, entry.get("preconditions"))
                except conditions.ConditionError as err:
                    return ERROR, resource, f"failed to evaluate mutate.foreach[{index}].preconditions: {err}"
                if not passed:
                    continue
                if entry.get("foreach"):
                    status, after, message = self.mutate(entry["foreach"], patched, nesting + 1)
                else:
                    status, after, message = self._one(entry, patched)
                if status == ERROR:
                    return status, resource, message
                if status == PASS:
                    patched = after
            if patched != resource:
                return PASS, patched, ""
            return SKIP, patched, "no patches applied"
        finally:
            ctx.restore()

    def _one(self, entry: dict, resource: dict) -> Outcome:
        parts = {
            "patchStrategicMerge": entry.get("patchStrategicMerge"),
            "patchesJson6902": entry.get("patchesJson6902"),
        }
        try:
            substituted: Any = substitute_all(self.run.ctx, parts)
        except SubstitutionError as err:
            return ERROR, resource, f"variable substitution failed: {err}"
        return apply_mutation(substituted, resource)
