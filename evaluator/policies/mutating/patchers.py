"""One mutation of one (policy, binding, param) tuple: evaluate its expression, apply the patch.

Mirrors patch/smd.go (ApplyConfiguration) and patch/json_patch.go (JSONPatch): every error text is the
server's, and every failure is returned as data (`error`), never raised. Each mutation gets its own
runtime budget and its own composition context, so `variables` are evaluated (lazily) per mutation.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.policies.mutating import jsonpatch as jp
from evaluator.policies.mutating.apply import ApplyError, apply_configuration
from evaluator.policies.mutating.compiler import APPLY_CONFIGURATION, JSON_PATCH, Mutation
from evaluator.admission.go_decode import decode_errors
from evaluator.k8s.object_schema import ObjectSchema
from evaluator.policies.mutating.typed import (
    ConversionError,
    cel_type_name,
    check_type_names,
    drop_nulls,
    materialize_parents,
    to_json_value,
)
from evaluator.admission import expressions as ex
from evaluator.admission.conditions import for_input

RUNTIME_CEL_COST_BUDGET = 10_000_000
INTERNAL_ERROR = "Internal error occurred: "


@dataclass
class MutationOutcome:
    object: Any = None
    error: str | None = None
    # An apierrors StatusError (decoding the patched object): returned as is, past the failurePolicy.
    internal: bool = False
    test_failed: str | None = None
    trace: dict[str, Any] = field(default_factory=dict)


def _evaluate(mutation: Mutation, bindings: Mapping[str, Any], variables, trace: dict) -> tuple[Any, str | None]:
    compiled = mutation.expression
    if compiled.error is not None:
        return None, compiled.error
    outcome, context = for_input([compiled], bindings, variables, RUNTIME_CEL_COST_BUDGET)
    trace["variables"] = [
        {"name": v.name, "expression": v.expression, "value": v.value, "type": v.type, "cost": v.cost, "error": v.error}
        for v in (context.trace or [])
    ]
    if outcome.error is not None and not outcome.results:
        return None, outcome.error
    result = outcome.results[0]
    trace["cost"] = result.cost
    if result.error is not None:
        return None, result.error
    trace["type"] = ex.type_name(result.value)
    return result.value, None


def run_mutation(
    mutation: Mutation, current: Mapping[str, Any], bindings: Mapping[str, Any], variables, objschema: ObjectSchema
) -> MutationOutcome:
    trace: dict[str, Any] = {
        "index": mutation.index,
        "patchType": mutation.patch_type,
        "expression": mutation.expression.expression,
        "path": mutation.path,
    }
    outcome = MutationOutcome(trace=trace)
    value, error = _evaluate(mutation, bindings, variables, trace)
    if error is None:
        try:
            if mutation.patch_type == APPLY_CONFIGURATION:
                outcome.object, error = _apply_configuration(value, current, objschema, trace)
            elif mutation.patch_type == JSON_PATCH:
                outcome.object, error, outcome.test_failed = _json_patch(value, current, objschema, trace)
            else:
                error = f'unsupported patch type "{mutation.patch_type}"'
        except RecursionError:
            error = "max recursion depth exceeded"
    outcome.error = error
    outcome.internal = bool(error and error.startswith(INTERNAL_ERROR))
    trace["error"] = error
    if outcome.test_failed:
        trace["testFailed"] = outcome.test_failed
    return outcome


# -- ApplyConfiguration ------------------------------------------------------------------------------------
def _apply_configuration(
    value: Any, current: Mapping[str, Any], objschema: ObjectSchema, trace: dict
) -> tuple[Any, str | None]:
    type_name = cel_type_name(value)
    if type_name != "Object":
        got = type_name or ex.type_name(value)
        return None, f"must evaluate to Object but got {got}"
    mismatches = check_type_names(value)
    if mismatches:
        return None, "type mismatch: " + "\n".join(mismatches)
    try:
        patch = to_json_value(value)
    except ConversionError as exc:
        return None, f"invalid return type: {exc.message}"
    patch["apiVersion"] = current.get("apiVersion")
    patch["kind"] = current.get("kind")
    trace["applyConfiguration"] = patch
    if objschema.note:
        trace["note"] = objschema.note
    try:
        merged = apply_configuration(current, patch, objschema)
    except ApplyError as exc:
        return None, f"error applying patch: {exc.message}"
    return (drop_nulls(merged) if objschema.typed else merged), None


# -- JSONPatch ----------------------------------------------------------------------------------------------
def _operations(value: Any) -> tuple[list[dict], str | None]:
    if not isinstance(value, list):
        return [], "type mismatch: JSONPatchType.expression should evaluate to array"
    operations = []
    for element in value:
        if cel_type_name(element) != "JSONPatch":
            return [], (
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: "
                f"type conversion error from '{cel_type_name(element) or ex.type_name(element)}' to "
                "'*mutation.JSONPatchVal'"
            )
        op: dict[str, Any] = {}
        for name in ("op", "path", "from"):
            text = element.get(name, "")
            if not isinstance(text, str):
                return [], (
                    f"type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: "
                    f"field '{name}' must be a string, got {ex.type_name(text)}"
                )
            if name != "from" or text:
                op[name] = text
        if "value" in element:
            raw = element["value"]
            mismatches = check_type_names(raw)
            if mismatches:
                return [], "type mismatch: " + "\n".join(mismatches)
            try:
                op["value"] = to_json_value(raw)
            except ConversionError as exc:
                return [], f"JSONPath valueExpression evaluated to a type that could not marshal to JSON: {exc.message}"
        operations.append(op)
    return operations, None


def _json_patch(
    value: Any, current: Mapping[str, Any], objschema: ObjectSchema, trace: dict
) -> tuple[Any, str | None, str | None]:
    operations, error = _operations(value)
    if error is not None:
        return None, error, None
    trace["operations"] = operations
    doc = copy.deepcopy(dict(current))
    for op in operations:
        for pointer in (op.get("path"), op.get("from")):
            materialize_parents(doc, pointer, objschema)
        try:
            jp.apply_operation(doc, op)
        except jp.TestFailed as exc:
            # A failed test means the whole patch is not applied; the object is returned unchanged.
            return copy.deepcopy(dict(current)), None, exc.message
        except jp.PatchError as exc:
            return None, f"JSON Patch: {exc.message}", None
    problem = decode_errors(doc, objschema)
    if problem is not None:
        return None, INTERNAL_ERROR + problem, None
    return (drop_nulls(doc) if objschema.typed else doc), None, None
