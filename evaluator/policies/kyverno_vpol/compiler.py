"""Compile a ValidatingPolicy (or one autogen variant of it) once, as Kyverno's vpol compiler does.

Expressions compile in Kyverno's environment: the admission variables plus `exceptions` and the library
variables, against the Kyverno function registry. As in Kyverno, one expression that does not compile
makes the whole policy fail to compile; the error lists field path, expression and cel-go's message
(`spec.validations[0].expression: Invalid value: "...": ERROR: <input>:1:3: ...`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.types import DYN

from . import spec as sp
from .libs import KYVERNO_REGISTRY, LIBRARY_VARIABLES

DECLARED = ("object", "oldObject", "request", "namespaceObject", "variables", "exceptions") + LIBRARY_VARIABLES
COMPILE_ERROR_PREFIX = "<nil>: Internal error: validating policy compiler 1.0 error: failed to compile policy"


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    return replace(
        _cel.admission_env(), variables=dict.fromkeys(DECLARED, DYN), registry=KYVERNO_REGISTRY, name="kyverno-vpol"
    )


@dataclass(frozen=True)
class Validation:
    index: int
    program: Any
    message: str
    message_expression: Any
    reason: str


@dataclass(frozen=True)
class CompiledException:
    document: Mapping[str, Any]
    conditions: tuple[Any, ...]


@dataclass
class CompiledPolicy(sp.Named):
    """One compiled policy or autogen variant; `error` set when it does not compile."""

    document: Mapping[str, Any]
    spec: Mapping[str, Any]
    variant: str = ""
    mode: str = "Kubernetes"
    failure_policy: str = "Fail"
    match_constraints: Mapping[str, Any] | None = None
    match_conditions: tuple[tuple[str, Any], ...] = ()
    variables: tuple[tuple[str, Any], ...] = ()
    validations: tuple[Validation, ...] = ()
    audit_annotations: tuple[tuple[str, Any], ...] = ()
    exceptions: tuple[CompiledException, ...] = ()
    error: str | None = None
    errors: list[dict] = field(default_factory=list)


def _quote(text: str) -> str:
    """Go's %q as field.Invalid prints a string value."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


class FieldCompileError(Exception):
    def __init__(self, path: str, expression: str, detail: str):
        super().__init__(detail)
        self.path, self.expression, self.detail = path, expression, detail

    def text(self) -> str:
        return f"{self.path}: Invalid value: {_quote(self.expression)}: {self.detail}"


def compile_field(path: str, expression: Any, want: str | None, env: Any = None) -> Any:
    text = expression if isinstance(expression, str) else ""
    try:
        program = _cel.compile_program(text, env=env or environment())
    except _cel.CompileError as err:
        raise FieldCompileError(path, text, err.message) from None
    except Exception as err:  # the CEL layer must never crash a simulation
        raise FieldCompileError(path, text, str(err)) from None
    if want is not None:
        output = getattr(program, "type", None)
        if output is not None and not output.is_dyn and output.name not in ("any", want):
            raise FieldCompileError(path, text, f"output is expected to be of type {want}")
    return program


def mappings(value: Any) -> list[Mapping[str, Any]]:
    """The mappings of a list field (a field of another type holds none): hostile specs never crash."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def exception_conditions(exception: Mapping[str, Any], compile: Any = None) -> tuple[Any, ...]:
    """A CEL PolicyException's matchConditions, compiled (by `compile`, a `compile_field` by default)."""
    compile = compile or compile_field
    return tuple(
        compile(f"spec.matchConditions[{i}].expression", c.get("expression"), "bool")
        for i, c in enumerate(mappings(sp.spec_of(exception).get("matchConditions")))
    )


def compiled_exceptions(
    document: Mapping[str, Any], exceptions: list[Mapping[str, Any]], compile: Any = None
) -> tuple[tuple[Mapping[str, Any], tuple[Any, ...]], ...]:
    """Each CEL PolicyException naming this policy, with its matchConditions compiled; a condition that does
    not compile is the policy's FieldCompileError."""
    return tuple((exc, exception_conditions(exc, compile)) for exc in exceptions_for(document, exceptions))


def audit_annotations(spec: Mapping[str, Any], compile: Any = None) -> tuple[tuple[str, Any], ...]:
    """(key, compiled valueExpression) of each auditAnnotation."""
    compile = compile or compile_field
    return tuple(
        (
            str(a.get("key") or ""),
            compile(f"spec.auditAnnotations[{i}].valueExpression", a.get("valueExpression"), None),
        )
        for i, a in enumerate(mappings(spec.get("auditAnnotations")))
    )


def validations(spec: Mapping[str, Any], compile: Any, compile_message: Any, want: str | None = "bool") -> tuple:
    """The compiled validations: each expression (by `compile`, of type `want`) and messageExpression."""
    out = []
    for i, v in enumerate(mappings(spec.get("validations"))):
        program = compile(f"spec.validations[{i}].expression", v.get("expression"), want)
        message_expression = None
        if v.get("messageExpression"):
            message_expression = compile_message(
                f"spec.validations[{i}].messageExpression", v.get("messageExpression"), "string"
            )
        out.append(Validation(i, program, str(v.get("message") or ""), message_expression, str(v.get("reason") or "")))
    return tuple(out)


def resource_rules_required(constraints: Any) -> dict[str, str] | None:
    """The admission check's refusal of a policy whose matchConstraints has no resource rule, else None."""
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    if isinstance(rules, list) and any(isinstance(r, Mapping) for r in rules):
        return None
    return {
        "path": "spec.matchConstraints",
        "message": "spec.matchConstraints: Required value: a matchConstraints with at least one resource "
        "rule is required",
    }


def compile_policy(
    document: Mapping[str, Any], spec: Mapping[str, Any], exceptions: list[Mapping[str, Any]], variant: str = ""
) -> CompiledPolicy:
    compiled = CompiledPolicy(
        document=document,
        spec=spec,
        variant=variant,
        mode=sp.evaluation_mode(spec),
        failure_policy=sp.failure_policy(spec),
        match_constraints=spec.get("matchConstraints") if isinstance(spec.get("matchConstraints"), Mapping) else None,
    )
    authz_mode = compiled.mode in ("HTTP", "Envoy")
    env = None
    if authz_mode:
        from .authz import environment as authz_environment

        env = authz_environment()
    try:
        compiled.match_conditions = tuple(
            (
                str(c.get("name") or ""),
                compile_field(f"spec.matchConditions[{i}].expression", c.get("expression"), "bool", env),
            )
            for i, c in enumerate(mappings(spec.get("matchConditions")))
        )
        compiled.variables = tuple(
            (str(v.get("name") or ""), compile_field(f"spec.variables[{i}].expression", v.get("expression"), None, env))
            for i, v in enumerate(mappings(spec.get("variables")))
        )
        compiled.validations = validations(
            spec,
            lambda path, expression, want: compile_field(path, expression, want, env),
            compile_field,
            None if authz_mode else "bool",
        )
        if compiled.mode == "Kubernetes":
            compiled.audit_annotations = audit_annotations(spec)
        compiled.exceptions = tuple(CompiledException(exc, exception_conditions(exc)) for exc in exceptions)
    except FieldCompileError as failed:
        compiled.errors = [{"path": failed.path, "expression": failed.expression, "message": failed.detail}]
        compiled.error = f"failed to compile policy {sp.name_of(document)} ([{COMPILE_ERROR_PREFIX}, {failed.text()}])"
    return compiled


def exceptions_for(document: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The CEL PolicyExceptions whose policyRefs name this policy and kind (one entry per matching ref)."""
    out = []
    for exc in exceptions:
        for ref in sp.spec_of(exc).get("policyRefs") or []:
            if (
                isinstance(ref, Mapping)
                and ref.get("name") == sp.name_of(document)
                and ref.get("kind") == document.get("kind")
            ):
                out.append(exc)
    return out


def located_problems(policies: Any, admission_errors: Any, locate: Any) -> list[dict[str, Any]]:
    """Each compiled policy's version problem and, when its version is served, what the kind's admission check
    (`admission_errors(compiled)`) refuses, each through `locate(document, **fields)`."""
    out = []
    for compiled in policies:
        issue = sp.version_issue(compiled.document)
        if issue is not None:
            out.append(locate(compiled.document, severity=issue[0], path="apiVersion", message=issue[1]))
            if issue[0] == "error":
                continue
        for error in admission_errors(compiled):
            out.append(locate(compiled.document, severity="error", **error))
    return out
