"""Compile a MutatingAdmissionPolicy once, as the mutating plugin's compilePolicy does.

All expressions (variables, matchConditions, mutations) are compiled in the admission environment with
the `Object` / `JSONPatch` construction types declared (HasPatchTypes). A mutation's expression must
evaluate to `Object` (ApplyConfiguration) or `list(JSONPatch)` (JSONPatch); a type the checker knows to
be different is the server's `must evaluate to Object but got Object.spec.metadata`. Types the checker
only knows as `dyn` (a variable, a param) are checked when the value exists. Compile errors stay on
their expression and surface when it runs, as on the server, and are listed with their field path.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.admission import expressions as ex
from evaluator.admission.compiled import CompiledConditions

APPLY_CONFIGURATION, JSON_PATCH = "ApplyConfiguration", "JSONPatch"
RETURN_TYPES = {APPLY_CONFIGURATION: "Object", JSON_PATCH: "list(JSONPatch)"}


@dataclass(frozen=True)
class Mutation:
    index: int
    patch_type: str
    expression: ex.CompiledExpression
    path: str


@dataclass(frozen=True)
class CompiledMutatingPolicy(CompiledConditions):
    """The attributes the VAP machinery's matchCondition evaluation reads, plus the mutations."""

    reinvocation_policy: str
    mutations: tuple[Mutation, ...]
    compile_errors: tuple[dict, ...] = field(default=())


def _environment(declared: frozenset[str]) -> Any:
    from evaluator.cel.versions import active_version

    return _versioned_environment(declared, active_version())


@functools.lru_cache(maxsize=64)
def _versioned_environment(declared: frozenset[str], version: str | None) -> Any:
    from evaluator.cel.types import DYN

    return replace(
        _cel.admission_env(mutating=True, version=version), variables={name: DYN for name in sorted(declared)}
    )


def _loosely_typed(type_text: str) -> bool:
    return "dyn" in type_text or type_text in ("any",)


@functools.lru_cache(maxsize=4096)
def compile_expression(
    expression: str, declared: frozenset[str], return_type: str | None = None
) -> ex.CompiledExpression:
    """Compile once per (expression, declarations, expected type); errors become data."""
    try:
        program = _cel.compile_program(expression, env=_environment(declared))
    except _cel.CompileError as exc:
        return ex.CompiledExpression(expression, error=f"compilation failed: {exc.message}")
    except Exception as exc:  # the CEL layer must never crash a simulation
        return ex.CompiledExpression(expression, error=f"compilation failed: {exc}")
    output = str(getattr(program, "type", "dyn"))
    if return_type is not None and output != return_type and not _loosely_typed(output):
        return ex.CompiledExpression(
            expression, error=f"must evaluate to {return_type} but got {output}", output_type=output
        )
    return ex.CompiledExpression(expression, program=program, output_type=output)


def _list(value: Any) -> list:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def compile_policy(policy: Mapping[str, Any]) -> CompiledMutatingPolicy:
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    name = str((policy.get("metadata") or {}).get("name") or "")
    param_kind = spec.get("paramKind") if isinstance(spec.get("paramKind"), Mapping) else None
    declared = ex.declarations(has_params=param_kind is not None, has_authorizer=True)
    errors: list[dict] = []

    def compile_at(path: str, expression: Any, return_type: str | None) -> ex.CompiledExpression:
        compiled = compile_expression(_text(expression), declared, return_type)
        if compiled.error is not None:
            errors.append({"path": path, "expression": compiled.expression, "message": compiled.error})
        return compiled

    variables = tuple(
        (_text(v.get("name")), compile_at(f"spec.variables[{i}].expression", v.get("expression"), None))
        for i, v in enumerate(_list(spec.get("variables")))
    )
    conditions = tuple(
        (_text(c.get("name")), compile_at(f"spec.matchConditions[{i}].expression", c.get("expression"), "bool"))
        for i, c in enumerate(_list(spec.get("matchConditions")))
    )
    mutations = []
    for i, mutation in enumerate(_list(spec.get("mutations"))):
        patch_type = _text(mutation.get("patchType"))
        holder_key = "applyConfiguration" if patch_type == APPLY_CONFIGURATION else "jsonPatch"
        holder = mutation.get(holder_key) if isinstance(mutation.get(holder_key), Mapping) else {}
        path = f"spec.mutations[{i}].{holder_key}.expression"
        if patch_type not in RETURN_TYPES:
            compiled = ex.CompiledExpression(
                _text(holder.get("expression")), error=f'unsupported patch type "{patch_type}"'
            )
            errors.append(
                {"path": f"spec.mutations[{i}].patchType", "expression": compiled.expression, "message": compiled.error}
            )
        else:
            compiled = compile_at(path, holder.get("expression"), RETURN_TYPES[patch_type])
        mutations.append(Mutation(i, patch_type, compiled, path))
    return CompiledMutatingPolicy(
        name=name,
        failure_policy=_text(spec.get("failurePolicy")) or "Fail",
        reinvocation_policy=_text(spec.get("reinvocationPolicy")) or "Never",
        has_params=param_kind is not None,
        param_kind=param_kind,
        variables=variables,
        match_conditions=conditions,
        mutations=tuple(mutations),
        compile_errors=tuple(errors),
    )
