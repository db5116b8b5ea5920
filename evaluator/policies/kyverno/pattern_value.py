"""Matching one resource value against one pattern leaf (Kyverno pkg/engine/pattern).

Policy numbers are float64 in Kyverno (decoded from JSON); resource whole numbers are int64. A Python int in a
pattern is therefore handled as a whole float, a Python int in a resource as an int64.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from . import wildcard
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


def _validate_string_patterns(value: object, pattern: str) -> bool:
    if isinstance(value, str) and value == pattern:
        return True
    for condition in pattern.split("|"):
        condition = condition.strip(" ")
        if all(_validate_string_pattern(value, c.strip(" ")) for c in condition.split("&")):
            return True
    return False


def split_range(pattern: str, regex: re.Pattern[str]) -> tuple[str, str] | None:
    m = regex.match(pattern)
    return (m.group(1), m.group(2)) if m else None


def _validate_string_pattern(value: object, pattern: str) -> bool:
    op = operator_of(pattern)
    if op == IN_RANGE:
        parts = split_range(pattern, IN_RANGE_RE)
        return (
            bool(parts)
            and _validate_string_pattern(value, f">= {parts[0]}")
            and _validate_string_pattern(value, f"<= {parts[1]}")
        )
    if op == NOT_IN_RANGE:
        parts = split_range(pattern, NOT_IN_RANGE_RE)
        return bool(parts) and (
            _validate_string_pattern(value, f"< {parts[0]}") or _validate_string_pattern(value, f"> {parts[1]}")
        )
    return _validate_string(value, pattern[len(op) :].strip(), op)


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


def _compare(result: int, op: str) -> bool | None:
    return {
        EQUAL: result == 0,
        NOT_EQUAL: result != 0,
        MORE: result > 0,
        LESS: result < 0,
        MORE_EQUAL: result >= 0,
        LESS_EQUAL: result <= 0,
    }.get(op)


# a duration pattern, then a quantity pattern, compares by that unit when the value reads as one too
_UNIT_PARSERS: tuple[Callable[[str], Any], ...] = (parse_duration, parse_quantity)


def _validate_string(value: object, pattern: str, op: str) -> bool:
    for parse in _UNIT_PARSERS:
        expected = parse(pattern)
        if expected is None:
            continue
        text = _number_to_string(value)
        actual = parse(text) if text is not None else None
        if actual is not None:
            res = _compare((actual > expected) - (actual < expected), op)
            if res is not None:
                return res
    return _compare_string(value, pattern, op)


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
