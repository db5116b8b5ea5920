"""Compile a ValidatingAdmissionPolicy once, as the plugin's compilePolicy does.

Variables, matchConditions, validations and auditAnnotations are compiled with `authorizer` declared;
messageExpressions without it; `params` only when the policy has a paramKind. A compile error is kept
on its expression and reported when that expression runs (the server's behaviour), and is also listed
with its field path so the UI can point at it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.cel.errors import format_issue
from evaluator.admission import expressions as ex
from evaluator.admission.compiled import CompiledConditions

BOOL = ("bool",)
STRING = ("string",)
STRING_OR_NULL = ("string", "null_type")


@dataclass(frozen=True)
class Validation:
    index: int
    expression: ex.CompiledExpression
    message: str
    reason: str | None
    message_expression: ex.CompiledExpression | None


@dataclass(frozen=True)
class AuditAnnotation:
    key: str
    value_expression: ex.CompiledExpression


@dataclass(frozen=True)
class CompiledPolicy(CompiledConditions):
    validations: tuple[Validation, ...]
    audit_annotations: tuple[AuditAnnotation, ...]
    compile_errors: tuple[dict, ...] = field(default=())
    # The expression lists as the server's condition evaluators hold them (None: no messageExpression).
    validation_expressions: tuple[ex.CompiledExpression, ...] = field(default=())
    message_expressions: tuple[ex.CompiledExpression | None, ...] = field(default=())
    audit_expressions: tuple[ex.CompiledExpression, ...] = field(default=())
    has_messages: bool = False
    # False when no expression names `authorizer`: its values are then never built nor bound.
    uses_authorizer: bool = True
    # False when no expression names `request`: the CEL request value is then never built (bound as null).
    uses_request: bool = True


def _list(value: Any) -> list:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


# An identifier can only be referenced by its name: a text without the word never reads it (a string literal
# or comment that holds the word only makes the values be built).
_AUTHORIZER_WORD = re.compile(r"\bauthorizer\b")
_REQUEST_WORD = re.compile(r"\brequest\b")
_STRING_LITERAL = re.compile(r"""[rRbB]*('''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""", re.S)
_VARIABLE_FIELD = re.compile(r"(?<![\w.])variables\s*(\.)\s*([A-Za-z_][A-Za-z0-9_]*)")


# `request` is typed as admission.k8s.io/v1 AdmissionRequest: unknown fields do not compile.
_GVK, _GVR = frozenset({"group", "version", "kind"}), frozenset({"group", "version", "resource"})
_REQUEST_FIELDS = {
    "uid": None,
    "kind": _GVK,
    "resource": _GVR,
    "subResource": None,
    "requestKind": _GVK,
    "requestResource": _GVR,
    "requestSubResource": None,
    "name": None,
    "namespace": None,
    "operation": None,
    "userInfo": frozenset({"username", "uid", "groups", "extra"}),
    "object": None,
    "oldObject": None,
    "dryRun": None,
    "options": None,
}
_REQUEST_FIELD = re.compile(
    r"(?<![\w.])request\s*(\.)\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s*(\.)\s*([A-Za-z_][A-Za-z0-9_]*))?"
)


def _undefined(expression: str, offset: int, name: str) -> str:
    line = expression.count("\n", 0, offset) + 1
    column = offset - (expression.rfind("\n", 0, offset) + 1) + 1
    return "compilation failed: " + format_issue(expression, f"undefined field '{name}'", line, column)


def undefined_variable(expression: str, known: set[str]) -> str | None:
    """The checker's `undefined field` errors that a dynamically typed environment cannot see:
    `variables.x` when x is not declared before (variables form a typed object whose fields are the
    variables compiled so far, so forward references do not compile), and unknown fields of the typed
    `request` (and of its kind/resource/userInfo)."""
    blanked = _STRING_LITERAL.sub(lambda m: " " * len(m.group(0)), expression)
    for match in _VARIABLE_FIELD.finditer(blanked):
        if match.group(2) not in known:
            return _undefined(expression, match.start(1), match.group(2))
    for match in _REQUEST_FIELD.finditer(blanked):
        field_name, sub = match.group(2), match.group(4)
        if field_name not in _REQUEST_FIELDS:
            return _undefined(expression, match.start(1), field_name)
        nested = _REQUEST_FIELDS[field_name]
        if sub is not None and nested is not None and sub not in nested:
            return _undefined(expression, match.start(3), sub)
    return None


def compile_policy(policy: Mapping[str, Any]) -> CompiledPolicy:
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    name = str((policy.get("metadata") or {}).get("name") or "")
    param_kind = spec.get("paramKind") if isinstance(spec.get("paramKind"), Mapping) else None
    has_params = param_kind is not None
    with_authz = ex.declarations(has_params=has_params, has_authorizer=True)
    without_authz = ex.declarations(has_params=has_params, has_authorizer=False)
    errors: list[dict] = []

    known: set[str] = set()

    compiled_variables: list[tuple[str, ex.CompiledExpression]] = []

    def compile_at(
        path: str, expression: Any, declared: frozenset[str], types: tuple[str, ...]
    ) -> ex.CompiledExpression:
        typed = ex.variable_types(compiled_variables)  # `variables` as the composited compiler declares it
        compiled = ex.compile_expression(_text(expression), declared, types, typed)
        if compiled.error is None:
            undefined = undefined_variable(compiled.expression, known)
            if undefined is not None:
                compiled = ex.CompiledExpression(compiled.expression, error=undefined)
        if compiled.error is not None:
            errors.append({"path": path, "expression": compiled.expression, "message": compiled.error})
        return compiled

    for i, v in enumerate(_list(spec.get("variables"))):
        compiled_variables.append(
            (_text(v.get("name")), compile_at(f"spec.variables[{i}].expression", v.get("expression"), with_authz, ()))
        )
        known.add(_text(v.get("name")))
    variables = tuple(compiled_variables)
    match_conditions = tuple(
        (
            _text(c.get("name")),
            compile_at(f"spec.matchConditions[{i}].expression", c.get("expression"), with_authz, BOOL),
        )
        for i, c in enumerate(_list(spec.get("matchConditions")))
    )
    validations = []
    for i, v in enumerate(_list(spec.get("validations"))):
        message_expression = None
        if _text(v.get("messageExpression")):
            message_expression = compile_at(
                f"spec.validations[{i}].messageExpression", v.get("messageExpression"), without_authz, STRING
            )
        validations.append(
            Validation(
                index=i,
                expression=compile_at(f"spec.validations[{i}].expression", v.get("expression"), with_authz, BOOL),
                message=_text(v.get("message")),
                reason=_text(v.get("reason")) or None,
                message_expression=message_expression,
            )
        )
    audit_annotations = tuple(
        AuditAnnotation(
            _text(a.get("key")),
            compile_at(
                f"spec.auditAnnotations[{i}].valueExpression", a.get("valueExpression"), with_authz, STRING_OR_NULL
            ),
        )
        for i, a in enumerate(_list(spec.get("auditAnnotations")))
    )
    expressions = _expressions(variables, match_conditions, validations, audit_annotations)
    return CompiledPolicy(
        name=name,
        failure_policy=_text(spec.get("failurePolicy")) or "Fail",
        has_params=has_params,
        param_kind=param_kind,
        variables=variables,
        match_conditions=match_conditions,
        validations=tuple(validations),
        audit_annotations=audit_annotations,
        compile_errors=tuple(errors),
        validation_expressions=tuple(v.expression for v in validations),
        message_expressions=tuple(v.message_expression for v in validations),
        audit_expressions=tuple(a.value_expression for a in audit_annotations),
        has_messages=any(v.message_expression is not None for v in validations),
        uses_authorizer=any(_AUTHORIZER_WORD.search(c.expression) for c in expressions),
        uses_request=any(_REQUEST_WORD.search(c.expression) for c in expressions),
    )


def _expressions(variables, match_conditions, validations, audit_annotations) -> list[ex.CompiledExpression]:
    """Every compiled expression of a policy."""
    found = [c for _, c in variables] + [c for _, c in match_conditions]
    for v in validations:
        found.append(v.expression)
        if v.message_expression is not None:
            found.append(v.message_expression)
    return found + [a.value_expression for a in audit_annotations]
