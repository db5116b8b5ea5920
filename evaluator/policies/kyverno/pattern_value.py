"""Matching one resource value against one pattern leaf (Kyverno pkg/engine/pattern).

Policy numbers are float64 in Kyverno (decoded from JSON); resource whole numbers are int64. A Python int in a
pattern is therefore handled as a whole float, a Python int in a resource as an int64.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

from . import wildcard
from evaluator.cel.memo import remembered_when_short
from .units import parse_duration, parse_quantity

EQUAL, MORE_EQUAL, LESS_EQUAL, NOT_EQUAL, MORE, LESS, IN_RANGE, NOT_IN_RANGE = (
    "",
    ">=",
    "<=",
    "!",
    ">",
    "<",
    "-",
    "!-",
)

IN_RANGE_RE = re.compile(r"^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$")
NOT_IN_RANGE_RE = re.compile(r"^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$")


Check = Callable[[object], bool]


def is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def operator_of(pattern: str) -> str:
    """The leading operator of a string pattern (operator.GetOperatorFromStringPattern)."""
    if len(pattern) < 2:
        return EQUAL
    for op in (MORE_EQUAL, LESS_EQUAL, MORE, LESS, NOT_EQUAL):
        if pattern.startswith(op):
            return op
    if NOT_IN_RANGE_RE.match(pattern):
        return NOT_IN_RANGE
    if IN_RANGE_RE.match(pattern):
        return IN_RANGE
    return EQUAL


def validate(value: object, pattern: object) -> bool:
    """pattern.Validate: does the resource value satisfy the pattern leaf?"""
    if isinstance(pattern, bool):
        return isinstance(value, bool) and value == pattern
    if is_number(pattern):
        return _validate_float(value, float(pattern))
    if pattern is None:
        return _validate_nil(value)
    if isinstance(pattern, dict):
        return isinstance(value, dict)
    if isinstance(pattern, str):
        return _validate_string_patterns(value, pattern)
    return False


def _validate_float(value: object, pattern: float) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return pattern == math.trunc(pattern) and int(pattern) == value
    if isinstance(value, float):
        return value == pattern
    if isinstance(value, str):
        parsed = parse_go_float(value)
        return parsed is not None and parsed == pattern
    return False


def parse_go_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64), None on error."""
    t = text
    if not re.fullmatch(
        r"[+-]?(?:(?:\d[\d_]*)?\.?\d*(?:[eE][+-]?\d+)?|[iI]nf(?:inity)?|[nN]a[nN]|0[xX][0-9a-fA-F.pP+-]+)", t
    ) or t in ("", "+", "-", ".", "+.", "-."):
        return None
    try:
        if t.lower().startswith(("0x", "+0x", "-0x")):
            return float.fromhex(t)
        return float(t.replace("_", "")) if "_" not in t else None
    except ValueError:
        return None


def parse_go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None on error."""
    if re.fullmatch(r"[+-]?\d+", text or ""):
        v = int(text)
        if -(2**63) <= v < 2**63:
            return v
    return None


def _validate_nil(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, bool):
        return not value
    if is_number(value):
        return value == 0
    if isinstance(value, str):
        return value == ""
    return False


def checker(pattern: object) -> Callable[[object], bool]:
    """`validate` with its pattern fixed (a string pattern parsed once): a policy's pattern leaf meets every
    resource value the policy reads."""
    if isinstance(pattern, str):
        return functools.partial(_string_satisfied, pattern=pattern, checks=_string_checks(pattern))
    return functools.partial(validate, pattern=pattern)


def _validate_string_patterns(value: object, pattern: str) -> bool:
    return _string_satisfied(value, pattern, _string_checks(pattern))


def _string_satisfied(value: object, pattern: str, checks: tuple[tuple[Check, ...], ...]) -> bool:
    if isinstance(value, str) and value == pattern:
        return True
    for conjunction in checks:
        for check in conjunction:
            if not check(value):
                break
        else:
            return True
    return False


@remembered_when_short(256)
def _string_checks(pattern: str) -> tuple[tuple[Check, ...], ...]:
    """A string pattern's alternatives (`|`), each a conjunction (`&`) of checks: every resource value a
    policy's pattern meets is checked against the same parsed operators, ranges and units."""
    return tuple(
        tuple(_condition_check(c.strip(" ")) for c in condition.strip(" ").split("&"))
        for condition in pattern.split("|")
    )


def split_range(pattern: str, regex: re.Pattern[str]) -> tuple[str, str] | None:
    m = regex.match(pattern)
    return (m.group(1), m.group(2)) if m else None


def _condition_check(pattern: str) -> Check:
    """One condition of a string pattern, parsed: an operator and its operand, or a range of two."""
    op = operator_of(pattern)
    if op in (IN_RANGE, NOT_IN_RANGE):
        parts = split_range(pattern, IN_RANGE_RE if op == IN_RANGE else NOT_IN_RANGE_RE)
        if not parts:
            return _never
        if op == IN_RANGE:
            low, high = _condition_check(f">= {parts[0]}"), _condition_check(f"<= {parts[1]}")
            return lambda value: low(value) and high(value)
        below, above = _condition_check(f"< {parts[0]}"), _condition_check(f"> {parts[1]}")
        return lambda value: below(value) or above(value)
    operand = pattern[len(op) :].strip()
    # a duration operand, then a quantity operand, compares by that unit when the value reads as one too
    units = tuple((parse, expected) for parse in _UNIT_PARSERS if (expected := parse(operand)) is not None)
    return functools.partial(_validate_string, operand=operand, op=op, units=units)


def _never(value: object) -> bool:
    return False


def _number_to_string(value: object) -> str | None:
    """convertNumberToString: nil is "0", float64 uses %f."""
    if value is None:
        return "0"
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:f}"
    if isinstance(value, int):
        return str(value)
    return None


_COMPARISONS: dict[str, Callable[[int], bool]] = {
    EQUAL: lambda result: result == 0,
    NOT_EQUAL: lambda result: result != 0,
    MORE: lambda result: result > 0,
    LESS: lambda result: result < 0,
    MORE_EQUAL: lambda result: result >= 0,
    LESS_EQUAL: lambda result: result <= 0,
}


def _compare(result: int, op: str) -> bool | None:
    comparison = _COMPARISONS.get(op)
    return None if comparison is None else comparison(result)


_UNIT_PARSERS: tuple[Callable[[str], Any], ...] = (parse_duration, parse_quantity)


def _validate_string(
    value: object, *, operand: str, op: str, units: tuple[tuple[Callable[[str], Any], Any], ...]
) -> bool:
    """`units`: (parser, the operand as that unit) for each unit the operand reads as."""
    for parse, expected in units:
        text = _number_to_string(value)
        actual = parse(text) if text is not None else None
        if actual is not None:
            res = _compare((actual > expected) - (actual < expected), op)
            if res is not None:
                return res
    return _compare_string(value, operand, op)


def _format_float_e(v: float) -> str:
    """strconv.FormatFloat(v, 'E', -1, 64)."""
    from .gofmt import _shortest

    if v == 0:
        return "0E+00"
    digits, e10 = _shortest(v)
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if v < 0 else "") + f"{mant}E{'-' if e10 < 0 else '+'}{abs(e10):02d}"


def _compare_string(value: object, pattern: str, op: str) -> bool:
    if op not in (EQUAL, NOT_EQUAL):
        return False
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = _format_float_e(value)
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, str):
        text = value
    else:
        return False
    matched = wildcard.match(pattern, text)
    return not matched if op == NOT_EQUAL else matched
