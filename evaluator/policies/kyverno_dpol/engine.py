"""Compile a DeletingPolicy / NamespacedDeletingPolicy once and decide, per object, whether its next run
deletes it (pkg/cel/policies/dpol: compiler + engine).

Compile: variables, then conditions, then the matchConditions of the CEL PolicyExceptions naming the policy;
the first expression that does not compile fails the policy with its field path. Evaluate one object: an
object with apiVersion and kind must be selected by `spec.matchConstraints` (every operation counts: the
rules' operations are replaced by `*`; no constraints select nothing); then the exceptions (any match
spares the object), then the conditions (all true: delete; any false: keep; an error: error). CEL sees
`object`, `namespaceObject` (the object's Namespace, or the Namespace itself), `variables` and `resource`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission.matching import match_resources
from evaluator.policies.kyverno_vpol import spec as sp
from evaluator.policies.kyverno_vpol.compiler import (
    FieldCompileError,
    compile_field,
    compiled_exceptions,
    mappings,
    resource_rules_required,
)
from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.engine import EvalFailure, LazyVariables, all_true, exception_key
from evaluator.policies.kyverno_vpol.inputs import gvr_for, namespace_lookup
from evaluator.policies.kyverno_vpol.libs import bindings

from .schedule import ScheduleError, parse_schedule

DELETE, KEEP, NOT_SELECTED, ERROR = "delete", "keep", "not selected", "error"
COMPILE_ERROR = "deleting policy compiler 1.0 error: failed to compile policy"


@dataclass
class CompiledDeletingPolicy(sp.NamedSpec):
    document: Mapping[str, Any]
    conditions: tuple[tuple[str, Any], ...] = ()
    variables: tuple[tuple[str, Any], ...] = ()
    exceptions: tuple[tuple[Mapping[str, Any], tuple[Any, ...]], ...] = ()
    error: str | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)  # {path, message[, expression]}


@dataclass
class Verdict:
    """One object under one policy: `result` delete / keep / not selected / error, and why."""

    result: str
    reason: str
    exceptions: list[str] = field(default_factory=list)


def compile_policy(document: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> CompiledDeletingPolicy:
    compiled = CompiledDeletingPolicy(document)
    spec = compiled.spec
    try:
        compiled.variables = tuple(
            (str(v.get("name") or ""), compile_field(f"spec.variables[{i}].expression", v.get("expression"), None))
            for i, v in enumerate(mappings(spec.get("variables")))
        )
        compiled.conditions = tuple(
            (str(c.get("name") or ""), compile_field(f"spec.conditions[{i}].expression", c.get("expression"), "bool"))
            for i, c in enumerate(mappings(spec.get("conditions")))
        )
        compiled.exceptions = compiled_exceptions(document, exceptions)
    except FieldCompileError as failed:
        compiled.errors = [{"path": failed.path, "expression": failed.expression, "message": failed.detail}]
        compiled.error = f"[{COMPILE_ERROR}, {failed.text()}]"
    return compiled


def admission_errors(compiled: CompiledDeletingPolicy) -> list[dict[str, Any]]:
    """What Kyverno's admission check of the policy (dpol.Validate) refuses besides compile errors."""
    out = list(compiled.errors)
    required = resource_rules_required(compiled.spec.get("matchConstraints"))
    if required is not None:
        out.append(required)
    schedule = compiled.spec.get("schedule")
    if not schedule:
        out.append({"path": "spec.schedule", "message": "spec.schedule: Required value: schedule is required"})
    else:
        try:
            parse_schedule(str(schedule))
        except ScheduleError as err:
            out.append(
                {
                    "path": "spec.schedule",
                    "message": f'spec.schedule: Invalid value: "{schedule}": schedule spec in the deletingPolicy '
                    f"is not in proper cron format: {err}",
                }
            )
    return out


def _any_operation(constraints: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(constraints))
    for key in ("resourceRules", "excludeResourceRules"):
        rules = out.get(key)
        if key == "resourceRules" and isinstance(rules, list):
            out[key] = [{**r, "operations": ["*"]} if isinstance(r, Mapping) else r for r in rules]
    return out


def _namespace_object(obj: Mapping[str, Any], namespaces: Mapping[str, Mapping[str, Any]], known_only: bool) -> Any:
    """The object's Namespace (unknown ones labelled kubernetes.io/metadata.name, or None when `known_only`),
    or a Namespace object itself."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    namespace = str(meta.get("namespace") or "")
    if namespace:
        return namespaces.get(namespace) if known_only else namespace_lookup(namespaces)(namespace)
    if obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1":
        name = str(meta.get("name") or "")
        return namespaces.get(name) or {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": name, "labels": dict(meta.get("labels") or {})},
        }
    return None


def selected(
    compiled: CompiledDeletingPolicy,
    obj: Mapping[str, Any],
    namespaces: Mapping[str, Mapping[str, Any]],
    crd_plurals: Mapping[tuple[str, str], str] | None = None,
) -> tuple[bool, str | None]:
    """(selected by matchConstraints, matching error)."""
    constraints = compiled.spec.get("matchConstraints")
    if not isinstance(constraints, Mapping) or not isinstance(constraints.get("resourceRules"), list):
        return False, None
    api_version = str(obj.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    gvk = {"group": group, "version": version, "kind": str(obj.get("kind") or "")}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    request = {
        "kind": gvk,
        "resource": gvr_for(gvk, crd_plurals),
        "subResource": "",
        "namespace": str(meta.get("namespace") or ""),
        "name": str(meta.get("name") or ""),
        "operation": "CREATE",
        "object": obj,
        "oldObject": None,
    }
    result = match_resources(_any_operation(constraints), request, namespace_lookup(namespaces))
    if result.error:
        return False, result.error
    return result.matched, None


def evaluate(
    compiled: CompiledDeletingPolicy,
    obj: Mapping[str, Any],
    context: OfflineContext,
    namespaces: Mapping[str, Mapping[str, Any]],
    *,
    known_only: bool = False,
) -> Verdict:
    """The next run's verdict on one object (a JSON payload, without apiVersion and kind, skips matching).
    `known_only`: `namespaceObject` is null for a namespace not in `namespaces` (the CLI's resolver)."""
    if compiled.error is not None:
        return Verdict(ERROR, compiled.error)
    if obj.get("apiVersion") and obj.get("kind"):
        hit, error = selected(compiled, obj, namespaces, context.crd_plurals)
        if error is not None:
            return Verdict(ERROR, error)
        if not hit:
            return Verdict(NOT_SELECTED, "not selected by spec.matchConstraints")
    activation: dict[str, Any] = {"object": obj, "namespaceObject": _namespace_object(obj, namespaces, known_only)}
    activation.update(bindings(context, compiled.namespace))
    activation["variables"] = LazyVariables(compiled.variables, activation)
    try:
        spared = [exc for exc, conditions in compiled.exceptions if all_true(conditions, activation)]
        if spared:
            keys = [exception_key(e) for e in spared]
            return Verdict(KEEP, "spared by policy exception: " + ", ".join(keys), keys)
        if not all_true(tuple(p for _, p in compiled.conditions), activation):
            failed = _first_false(compiled, activation)
            return Verdict(KEEP, f"condition {failed!r} is false" if failed else "a condition is false")
    except EvalFailure as err:
        return Verdict(ERROR, err.message)
    names = [n for n, _ in compiled.conditions]
    if not names:
        return Verdict(DELETE, "selected by spec.matchConstraints; the policy has no conditions")
    return Verdict(DELETE, "every condition is true: " + ", ".join(names))


def _first_false(compiled: CompiledDeletingPolicy, activation: Mapping[str, Any]) -> str:
    for name, program in compiled.conditions:
        try:
            if all_true((program,), activation) is False:
                return name
        except EvalFailure:
            continue
    return ""
