"""Compile a MutatingPolicy (or one autogen variant of it) once, as Kyverno's mpol compiler does.

Expressions compile in Kyverno's environment (admission variables, `exceptions`, the library variables and
functions of `kyverno_vpol.libs`) with the `Object` / `JSONPatch` construction types of a
MutatingAdmissionPolicy. Mutations are `evaluator.policies.mutating.compiler.Mutation`s, so the
MutatingAdmissionPolicy patchers apply them. As in Kyverno, one expression that does not compile makes the
whole policy fail to compile: the error names the field path, the expression and cel-go's message.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.admission import expressions as ex
from evaluator.cel.types import DYN
from evaluator.policies.kyverno_vpol.compiler import DECLARED, exceptions_for, mappings
from evaluator.policies.kyverno_vpol.libs import KYVERNO_REGISTRY
from evaluator.policies.mutating.compiler import APPLY_CONFIGURATION, JSON_PATCH, RETURN_TYPES, Mutation

from . import spec as sp

COMPILE_ERROR_PREFIX = "failed to compile policy"


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    return replace(
        _cel.admission_env(mutating=True),
        variables=dict.fromkeys(DECLARED, DYN),
        registry=KYVERNO_REGISTRY,
        name="kyverno-mpol",
    )


@dataclass(frozen=True)
class CompiledException:
    document: Mapping[str, Any]
    conditions: tuple[ex.CompiledExpression, ...]


@dataclass
class CompiledMutatingPolicy(sp.Named):
    """One compiled policy or autogen variant; `error` set when it does not compile."""

    document: Mapping[str, Any]
    spec: Mapping[str, Any]
    variant: str = ""
    failure_policy: str = "Fail"
    reinvocation_policy: str = "Never"
    match_constraints: Mapping[str, Any] | None = None
    target_constraints: Mapping[str, Any] | None = None
    match_conditions: tuple[tuple[str, ex.CompiledExpression], ...] = ()
    target_conditions: tuple[tuple[str, ex.CompiledExpression], ...] = ()
    target_expression: ex.CompiledExpression | None = None  # targetMatchConstraints.expression
    variables: tuple[tuple[str, ex.CompiledExpression], ...] = ()
    mutations: tuple[Mutation, ...] = ()
    audit_annotations: tuple[tuple[str, ex.CompiledExpression], ...] = ()
    exceptions: tuple[CompiledException, ...] = ()
    error: str | None = None
    errors: list[dict] = field(default_factory=list)


class _Failed(Exception):
    def __init__(self, path: str, expression: str, detail: str):
        super().__init__(detail)
        self.path, self.expression, self.detail = path, expression, detail


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _compile(path: str, expression: Any, want: str | None) -> ex.CompiledExpression:
    text = expression if isinstance(expression, str) else ""
    try:
        program = _cel.compile_program(text, env=environment())
    except _cel.CompileError as err:
        raise _Failed(path, text, err.message) from None
    except Exception as err:  # the CEL layer must never crash a simulation
        raise _Failed(path, text, str(err)) from None
    output = str(getattr(program, "type", "dyn"))
    if want is not None and not _acceptable(output, want):
        raise _Failed(path, text, f"output is expected to be of type {want}")
    return ex.CompiledExpression(text, program=program, output_type=output)


def _acceptable(output: str, want: str) -> bool:
    """The output type check of a mutation or condition. `null` where an object type is wanted passes (a
    `cond ? JSONPatch{...} : null` element filtered out later, as Kyverno's policies library writes them and
    its CLI accepts); `dyn` is checked when the value exists."""
    if output == want or "dyn" in output or output == "any":
        return True
    return want.startswith("list(") and output == "list(null_type)"


def _conditions(spec: Mapping[str, Any], key: str) -> tuple[tuple[str, ex.CompiledExpression], ...]:
    return tuple(
        (str(c.get("name") or ""), _compile(f"spec.{key}[{i}].expression", c.get("expression"), "bool"))
        for i, c in enumerate(mappings(spec.get(key)))
    )


def _mutations(spec: Mapping[str, Any]) -> tuple[Mutation, ...]:
    out = []
    for i, mutation in enumerate(mappings(spec.get("mutations"))):
        patch_type = str(mutation.get("patchType") or "")
        if patch_type not in RETURN_TYPES:
            raise _Failed(f"spec.mutations[{i}].patchType", patch_type, f'unsupported patch type "{patch_type}"')
        key = "applyConfiguration" if patch_type == APPLY_CONFIGURATION else "jsonPatch"
        holder = sp.section(mutation, key)
        path = f"spec.mutations[{i}].{key}.expression"
        compiled = _compile(path, holder.get("expression"), RETURN_TYPES[patch_type])
        out.append(Mutation(i, patch_type if patch_type in (APPLY_CONFIGURATION, JSON_PATCH) else "", compiled, path))
    return tuple(out)


def compile_policy(
    document: Mapping[str, Any], spec: Mapping[str, Any], exceptions: list[Mapping[str, Any]], variant: str = ""
) -> CompiledMutatingPolicy:
    target = sp.section(spec, "targetMatchConstraints")
    compiled = CompiledMutatingPolicy(
        document=document,
        spec=spec,
        variant=variant,
        failure_policy=sp.failure_policy(spec),
        reinvocation_policy=sp.reinvocation_policy(spec),
        match_constraints=sp.section(spec, "matchConstraints") or None,
        target_constraints=target or None,
    )
    try:
        compiled.variables = tuple(
            (str(v.get("name") or ""), _compile(f"spec.variables[{i}].expression", v.get("expression"), None))
            for i, v in enumerate(mappings(spec.get("variables")))
        )
        compiled.match_conditions = _conditions(spec, "matchConditions")
        compiled.target_conditions = _conditions(spec, "targetMatchConditions")
        if target.get("expression"):
            compiled.target_expression = _compile(
                "spec.targetMatchConstraints.expression", target.get("expression"), None
            )
        compiled.mutations = _mutations(spec)
        compiled.audit_annotations = tuple(
            (
                str(a.get("key") or ""),
                _compile(f"spec.auditAnnotations[{i}].valueExpression", a.get("valueExpression"), None),
            )
            for i, a in enumerate(mappings(spec.get("auditAnnotations")))
        )
        compiled.exceptions = tuple(
            CompiledException(exc, tuple(p for _, p in _conditions(sp.spec_of(exc), "matchConditions")))
            for exc in exceptions
        )
    except _Failed as failed:
        compiled.errors = [{"path": failed.path, "expression": failed.expression, "message": failed.detail}]
        text = f"{failed.path}: Invalid value: {_quote(failed.expression)}: {failed.detail}"
        compiled.error = f"{COMPILE_ERROR_PREFIX} {sp.name_of(document)} ([{text}])"
    return compiled


def mine(document: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The CEL PolicyExceptions whose policyRefs name this policy and its kind."""
    return exceptions_for(document, exceptions)
