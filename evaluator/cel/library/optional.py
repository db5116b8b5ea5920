"""cel-go's optional types library at the version Kubernetes enables (the latest of its cel-go): optional.of/none/
ofNonZeroValue, hasValue, value, orValue, or; from version 2 list first()/last(), optional.unwrap() and unwrapOpt()."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.registry import REGISTRY, function
from evaluator.cel.values import OPTIONAL_NONE, Duration, Optional, Timestamp


@function("optional.of(A) -> optional_type(A)")
def of(v: Any) -> Optional:
    return Optional(v)


@function("optional.none() -> optional_type(T)")
def none() -> Optional:
    return OPTIONAL_NONE


def _is_zero(v: Any) -> bool:
    if v is None or v is False:
        return True
    t = type(v)
    if t in (int, float, str, bytes, list, tuple, dict) or isinstance(v, (int, Mapping)):
        return not v
    if t is Timestamp or t is Duration:
        return v.nanos == 0 if t is Duration else v.nanos == -62135596800 * 1_000_000_000
    return False


@function("optional.ofNonZeroValue(A) -> optional_type(A)")
def of_non_zero(v: Any) -> Optional:
    return OPTIONAL_NONE if _is_zero(v) else Optional(v)


@function("optional_type(A).hasValue() -> bool")
def has_value(o: Optional) -> bool:
    return o.has_value


@function("optional_type(A).value() -> A")
def value(o: Optional) -> Any:
    if not o.has_value:
        raise CELEvalError("optional.none() dereference")
    return o.value


@function("optional_type(A).orValue(A) -> A")
def or_value(o: Optional, default: Any) -> Any:
    if type(o) is not Optional:  # cel-go <= 0.27 (Kubernetes' CEL) returns a non-optional receiver as it is
        return o
    return o.value if o.has_value else default


def _any_receiver(name: str, impl: Any) -> None:
    """cel-go plans `orValue` specially (evalOptionalOrValue) without checking the receiver's kind at run time."""
    for o in list(REGISTRY.overloads(name)):
        if o.impl is impl:
            REGISTRY.substitute(o, replace(o, checks=(lambda _v: True,) + o.checks[1:]))


_any_receiver("orValue", or_value)


@function("optional_type(A).or(optional_type(A)) -> optional_type(A)")
def or_(o: Optional, other: Any) -> Optional:
    if o.has_value:
        return o
    if type(other) is not Optional:
        raise CELEvalError("no such overload")
    return other


def short_circuit(unwrap: bool) -> Callable[[Callable, Callable], Callable]:
    """cel-go plans `o.or(p)` and `o.orValue(v)` as evalOptionalOr/evalOptionalOrValue, not as calls: the
    argument is evaluated only when `o` is optional.none(), and the step itself costs nothing."""

    def build(lf: Callable, rf: Callable) -> Callable:
        def optional_or(ctx: Any) -> Any:
            lhs = lf(ctx)
            if type(lhs) is not Optional:
                if unwrap:  # cel-go before 0.28 (Kubernetes' CEL) returns a non-optional receiver as it is
                    return lhs
                raise CELEvalError("no such overload")
            if lhs.has_value:
                return lhs.value if unwrap else lhs
            return rf(ctx)

        return optional_or

    return build


or_.cel_short_circuit = short_circuit(False)  # type: ignore[attr-defined]
or_value.cel_short_circuit = short_circuit(True)  # type: ignore[attr-defined]


# --- optional types library version 2 (cel-go v0.22, Kubernetes 1.32): lists and optionals ---------------
@function("list(A).first() -> optional_type(A)")
def first(items: list) -> Optional:
    """The first element as an optional: optional.none() for an empty list."""
    return Optional(items[0]) if items else OPTIONAL_NONE


@function("list(A).last() -> optional_type(A)")
def last(items: list) -> Optional:
    return Optional(items[-1]) if items else OPTIONAL_NONE


def _unwrap(items: list) -> list:
    values = []
    for item in items:
        if type(item) is not Optional:
            from evaluator.cel.tojson import to_json

            raise CELEvalError(f"value {to_json(item)} is not optional")
        if item.has_value:
            values.append(item.value)
    return values


@function("optional.unwrap(list(optional_type(A))) -> list(A)")
def unwrap(items: list) -> list:
    """The values of the present optionals, in order (cel-go's optUnwrap)."""
    return _unwrap(items)


@function("list(optional_type(A)).unwrapOpt() -> list(A)")
def unwrap_opt(items: list) -> list:
    return _unwrap(items)
