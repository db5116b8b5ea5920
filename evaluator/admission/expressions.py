"""The one door from admission to CEL: compile with the server's error texts, run with cost accounting.

Everything VAP needs from `evaluator.cel` goes through here, so a change of the CEL API is a change of
this file only. Compilation results carry the text the API server would put in a decision
(`compilation failed: ERROR: <input>:1:1: ...`, `must evaluate to bool but got int`).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.versions import active_version

PER_CALL_LIMIT = 1_000_000

# Names the admission environment declares (cel.OptionalVariableDeclarations of the server).
BASE_DECLARATIONS = frozenset({"object", "oldObject", "request", "namespaceObject", "variables"})


def declarations(*, has_params: bool, has_authorizer: bool) -> frozenset[str]:
    names = set(BASE_DECLARATIONS)
    if has_params:
        names.add("params")
    if has_authorizer:
        names.update({"authorizer", "authorizer.requestResource"})
    return frozenset(names)


@dataclass(frozen=True)
class CompiledExpression:
    """One compiled expression; `error` holds the server's compilation error text when it failed."""

    expression: str
    program: Any = None
    error: str | None = None
    output_type: str | None = None
    static_type: Any = None  # the checker's Type of the result (None when it did not compile)


@dataclass
class Run:
    """The outcome of one evaluation: a CEL value or an error text (cel-go form), and its cost."""

    value: Any = None
    cost: int = 0
    error: str | None = None


def _type_text(output_type: Any) -> str | None:
    if output_type is None:
        return None
    return str(output_type)


@functools.lru_cache(maxsize=256)
def _environment(declared: frozenset[str], version: str | None = None, variables: tuple = ()) -> Any:
    """The admission environment with exactly these names declared (an undeclared name does not compile).

    `variables` is ((name, Type), ...): the policy's variables compiled so far, which the composited
    compiler declares as fields of `variables` typed by their output (composition.go), so a later
    `variables.x` has x's type and a name not declared before is an undefined field.
    """
    from dataclasses import replace

    from evaluator.cel.schematypes import variables_type
    from evaluator.cel.types import DYN

    names = {name: DYN for name in sorted(declared)}
    if variables and "variables" in names:
        names["variables"] = variables_type(dict(variables))
    return replace(_cel.admission_env(version=version), variables=names)


def compile_expression(
    expression: str, declared: frozenset[str], return_types: tuple[str, ...] = (), variables: tuple = ()
) -> CompiledExpression:
    """Compile once per (expression, declarations, expected type, typed variables, simulated Kubernetes
    version); errors are data. `variables` as `variable_types` returns them."""
    return _compile_expression(expression, declared, return_types, active_version(), variables)


def variable_types(compiled: list[tuple[str, CompiledExpression]]) -> tuple:
    """((name, Type), ...) as `variables` declares them: each variable's output converted as
    composition.go does (primitives, lists and maps of them; anything else, or a failed variable, dyn)."""
    from evaluator.cel.schematypes import variable_field_type
    from evaluator.cel.types import DYN

    return tuple(
        (name, variable_field_type(c.static_type) if c.error is None and c.static_type is not None else DYN)
        for name, c in compiled
    )


@functools.lru_cache(maxsize=4096)
def _compile_expression(
    expression: str, declared: frozenset[str], return_types: tuple[str, ...], version: str | None, variables: tuple
) -> CompiledExpression:
    try:
        program = _cel.compile_program(expression, env=_environment(declared, version, variables))
    except _cel.CompileError as exc:
        return CompiledExpression(expression, error=f"compilation failed: {exc.message}")
    except Exception as exc:  # the CEL layer must never crash a simulation
        return CompiledExpression(expression, error=f"compilation failed: {exc}")
    static = getattr(program, "output_type", None) or getattr(program, "type", None)
    output = _type_text(static)
    # compile.go: the output type must be exactly one of the return types; `dyn` is not `bool`.
    if return_types and output is not None and output not in return_types:
        if len(return_types) == 1:
            reason = f"must evaluate to {return_types[0]} but got {output}"
        else:
            reason = f"must evaluate to one of [{' '.join(return_types)}] but got {output}"
        return CompiledExpression(expression, error=reason, output_type=output, static_type=static)
    return CompiledExpression(expression, program=program, output_type=output, static_type=static)


# What each kind of VAP expression may use and must return, as the plugin compiles it.
_CONTEXTS = {
    "matchCondition": (True, ("bool",)),
    "variable": (True, ()),
    "validation": (True, ("bool",)),
    "messageExpression": (False, ("string",)),
    "auditAnnotation": (True, ("string", "null_type")),
}


def compile_check(expression: str, context: str, has_params: bool, variables: tuple = ()) -> str | None:
    """The API server's create-time compile check: the error detail, or None when it compiles.

    `variables` are the policy's ((name, expression), ...) before this expression; the server compiles
    them first (CompileAndStoreVariables) so `variables.<name>` has its expression's type.
    """
    spec = _CONTEXTS.get(context)
    if spec is None:  # not a ValidatingAdmissionPolicy expression
        return None
    with_authorizer, return_types = spec
    declared = declarations(has_params=has_params, has_authorizer=with_authorizer)
    return compile_expression(expression, declared, return_types, typed_variables(variables, has_params)).error


def typed_variables(variables: tuple, has_params: bool) -> tuple:
    """The ((name, Type), ...) of ((name, expression), ...), each compiled with the ones before it."""
    declared = declarations(has_params=has_params, has_authorizer=True)
    compiled: list[tuple[str, CompiledExpression]] = []
    for name, expression in variables:
        compiled.append((name, compile_expression(expression, declared, (), variable_types(compiled))))
    return variable_types(compiled)


def run(compiled: CompiledExpression, activation: Mapping[str, Any]) -> Run:
    """Evaluate with the per-call limit; the caller accounts the cost against its own budgets."""
    try:
        evaluation = compiled.program.evaluate(activation)
    except _cel.CostLimitError as exc:
        return Run(cost=max(getattr(exc, "cost", 0) or 0, PER_CALL_LIMIT + 1), error=exc.message)
    except _cel.EvaluationError as exc:
        return Run(cost=getattr(exc, "cost", 0) or 0, error=exc.message)
    except RecursionError:
        return Run(error="max recursion depth exceeded")
    except Exception as exc:  # a bug below must show as an error of this expression, not a crash
        return Run(error=f"internal error: {type(exc).__name__}: {exc}")
    return Run(value=evaluation.value, cost=int(evaluation.cost or 0))


def run_plain(compiled: CompiledExpression, activation: Mapping[str, Any]) -> tuple[Any, int] | None:
    """(value, cost) of an evaluation that succeeded, None for anything else (a compile error, an error,
    the per-call limit): a fast path that falls back to `run` for the server's error texts."""
    if compiled.program is None:
        return None
    try:
        return compiled.program.evaluate_plain(activation)
    except Exception:
        return None


def evaluation_error(message: str, cost: int = 0) -> Exception:
    """An error a lazy `variables` lookup raises so that it surfaces at the referring expression."""
    try:
        return _cel.EvaluationError(message, cost=cost)
    except TypeError:
        return _cel.EvaluationError(message)


def type_name(value: Any) -> str:
    try:
        return _cel.type_name(value)
    except Exception:
        return type(value).__name__


def to_json(value: Any) -> Any:
    """A JSON-safe rendering of a CEL value for traces."""
    try:
        return _plain(_cel.to_json(value))
    except Exception:
        return _plain(value)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def make_authorizers(check: Any, request: Mapping[str, Any]) -> tuple[Any, Any]:
    """The CEL `authorizer` (asking as the request's user) and `authorizer.requestResource` values."""
    from evaluator.cel.library import authz as _authz

    user = request.get("userInfo") if isinstance(request.get("userInfo"), Mapping) else {}
    extra = {str(k): tuple(str(x) for x in (v or [])) for k, v in dict(user.get("extra") or {}).items()}
    authorizer = _authz.Authorizer(
        check=check,
        user=str(user.get("username") or ""),
        groups=tuple(str(g) for g in user.get("groups") or ()),
        extra=extra,
        uid=str(user.get("uid") or ""),
    )
    return authorizer, _authz.request_resource(authorizer, request)
