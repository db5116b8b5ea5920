"""The CEL standard library: operators, size, string predicates, conversions, time accessors.

Operators are declared here for the type checker; the compiler calls `operators.py` directly for speed.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.timeconv import (
    duration_to_string,
    local_datetime,
    parse_duration,
    parse_timestamp,
    timestamp_to_string,
)
from evaluator.cel.registry import constant_validator, function
from evaluator.cel.values import (
    UINT64_MAX,
    CelType,
    Duration,
    Timestamp,
    UInt,
    type_name,
)


def _traversal_cost(args: tuple, result: Any) -> int:
    """cel-go: O(n) functions cost a traversal of the receiver at 0.1 units a character."""
    return math.ceil(len(args[0]) * 0.1)


def _contains_cost(args: tuple, result: Any) -> int:
    """cel-go: contains is O(n·m)."""
    return math.ceil(len(args[0]) * 0.1) * math.ceil(len(args[1]) * 0.1)


# --- operators (types only; the compiler binds operators.py) ---
for _t in ("int", "uint", "double", "string", "bytes", "list(A)", "duration"):
    function(f"_+_({_t}, {_t}) -> {_t}")(ops.add)
function("_+_(timestamp, duration) -> timestamp", "_+_(duration, timestamp) -> timestamp")(ops.add)
for _t in ("int", "uint", "double", "duration"):
    function(f"_-_({_t}, {_t}) -> {_t}")(ops.sub)
function("_-_(timestamp, timestamp) -> duration", "_-_(timestamp, duration) -> timestamp")(ops.sub)
for _t in ("int", "uint", "double"):
    function(f"_*_({_t}, {_t}) -> {_t}")(ops.mul)
    function(f"_/_({_t}, {_t}) -> {_t}")(ops.div)
function("_%_(int, int) -> int", "_%_(uint, uint) -> uint")(ops.mod)
function("-_(int) -> int", "-_(double) -> double")(ops.neg)
function("!_(bool) -> bool")(ops.logical_not)
function("_==_(A, A) -> bool")(ops.equals)
function("_!=_(A, A) -> bool")(lambda a, b: not ops.equals(a, b))
function("@in(A, list(A)) -> bool", "@in(A, map(A, B)) -> bool")(lambda a, b: ops.contains(b, a))
_ORDERED = ("int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration")
_NUMBERS = ("int", "uint", "double")
for _name, _fn in (("_<_", ops.lt), ("_<=_", ops.le), ("_>_", ops.gt), ("_>=_", ops.ge)):
    for _t in _ORDERED:
        function(f"{_name}({_t}, {_t}) -> bool")(_fn)
    for _a in _NUMBERS:  # CrossTypeNumericComparisons
        for _b in _NUMBERS:
            if _a != _b:
                function(f"{_name}({_a}, {_b}) -> bool")(_fn)
function(
    "_[_](list(A), int) -> A",
    "_[_](map(K, V), K) -> V",
    "_[_](optional_type(list(A)), int) -> optional_type(A)",
    "_[_](optional_type(map(K, V)), K) -> optional_type(V)",
)(None)
function("_?_:_(bool, A, A) -> A", "_&&_(bool, bool) -> bool", "_||_(bool, bool) -> bool")(None)


# --- size and string predicates ---
@function(
    "size(string) -> int",
    "string.size() -> int",
    "size(bytes) -> int",
    "bytes.size() -> int",
    "size(list(A)) -> int",
    "list(A).size() -> int",
    "size(map(K, V)) -> int",
    "map(K, V).size() -> int",
)
def size(v: Any) -> int:
    return len(v)


@function("string.contains(string) -> bool", cost=_contains_cost)
def contains(s: str, sub: str) -> bool:
    return sub in s


@function("string.startsWith(string) -> bool", cost=_traversal_cost)
def starts_with(s: str, prefix: str) -> bool:
    return s.startswith(prefix)


@function("string.endsWith(string) -> bool", cost=_traversal_cost)
def ends_with(s: str, suffix: str) -> bool:
    return s.endswith(suffix)


# --- conversions ---
def _double_to_int(d: float) -> int:
    if math.isnan(d) or d <= -9.2233720368547758e18 or d >= 9.2233720368547758e18:
        raise CELEvalError("integer overflow")
    return int(d)


@function("int(int) -> int", "int(uint) -> int", "int(double) -> int", "int(string) -> int", "int(timestamp) -> int")
def to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        return ops.check_int(int(v))
    if t is float:
        return _double_to_int(v)
    if t is str:
        try:
            return ops.check_int(int(v, 10))
        except ValueError:
            raise CELEvalError(f'strconv.ParseInt: parsing "{v}": invalid syntax') from None
    if t is Timestamp:
        return v.seconds
    raise CELEvalError("no such overload")


@function("uint(int) -> uint", "uint(uint) -> uint", "uint(double) -> uint", "uint(string) -> uint")
def to_uint(v: Any) -> UInt:
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        return ops.check_uint(v)
    if t is float:
        if math.isnan(v) or v < 0 or v >= 1.8446744073709552e19:
            raise CELEvalError("unsigned integer overflow")
        return UInt(int(v))
    if t is str:
        try:
            n = int(v, 10)
        except ValueError:
            raise CELEvalError(f'strconv.ParseUint: parsing "{v}": invalid syntax') from None
        if v.startswith(("-", "+")) or n > UINT64_MAX:
            raise CELEvalError(f'strconv.ParseUint: parsing "{v}": invalid syntax')
        return UInt(n)
    raise CELEvalError("no such overload")


@function("double(int) -> double", "double(uint) -> double", "double(double) -> double", "double(string) -> double")
def to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        try:
            return float(v)
        except ValueError:
            raise CELEvalError(f'strconv.ParseFloat: parsing "{v}": invalid syntax') from None
    raise CELEvalError("no such overload")


def format_double(d: float) -> str:
    """Go's %g with the shortest representation (what cel-go's string(double) prints)."""
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "+Inf" if d > 0 else "-Inf"
    if d == 0:
        return "-0" if math.copysign(1.0, d) < 0 else "0"
    digits, exp = _shortest_digits(abs(d))
    sign = "-" if d < 0 else ""
    point = exp + 1  # position of the decimal point after the first digit
    e = point - 1
    if e < -4 or e >= 6:  # Go's %g with the shortest precision decides at 6
        mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest_digits(d: float) -> tuple[str, int]:
    r = repr(d)
    if "e" in r:
        m, _, ex = r.partition("e")
        digits = m.replace(".", "").lstrip("0") or "0"
        first_exp = int(ex)
        if "." in m:
            first_exp += len(m.split(".")[0].lstrip("-")) - 1
        return digits.rstrip("0") or "0", first_exp
    whole, _, frac = r.partition(".")
    if whole != "0":
        digits = (whole + frac).rstrip("0")
        return digits, len(whole) - 1
    stripped = frac.lstrip("0")
    return stripped.rstrip("0"), -(len(frac) - len(stripped)) - 1


def _bytes_conversion_cost(args: tuple, result: Any) -> int:
    """cel-go: converting between string and bytes traverses the value; other conversions cost 1."""
    if type(args[0]) in (str, bytes) and type(result) in (str, bytes) and type(args[0]) is not type(result):
        return math.ceil(len(args[0]) * 0.1)
    return 1


@function(
    "string(string) -> string",
    "string(int) -> string",
    "string(uint) -> string",
    "string(double) -> string",
    "string(bool) -> string",
    "string(bytes) -> string",
    "string(timestamp) -> string",
    "string(duration) -> string",
    cost=_bytes_conversion_cost,
)
def to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CELEvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if t is Timestamp:
        return timestamp_to_string(v)
    if t is Duration:
        return duration_to_string(v)
    to_str = getattr(v, "cel_string", None)
    if to_str is not None:
        return to_str()
    raise CELEvalError("no such overload")


@function("bytes(bytes) -> bytes", "bytes(string) -> bytes", cost=_bytes_conversion_cost)
def to_bytes(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise CELEvalError("no such overload")


_BOOL_STRINGS = {
    "1": True,
    "t": True,
    "true": True,
    "TRUE": True,
    "True": True,
    "0": False,
    "f": False,
    "false": False,
    "FALSE": False,
    "False": False,
}


@function("bool(bool) -> bool", "bool(string) -> bool")
def to_bool(v: Any) -> bool:
    if type(v) is bool:
        return v
    if type(v) is str:
        if v in _BOOL_STRINGS:
            return _BOOL_STRINGS[v]
        raise CELEvalError(f'strconv.ParseBool: parsing "{v}": invalid syntax')
    raise CELEvalError("no such overload")


@function("timestamp(string) -> timestamp", "timestamp(timestamp) -> timestamp", "timestamp(int) -> timestamp")
def to_timestamp(v: Any) -> Timestamp:
    if type(v) is Timestamp:
        return v
    if type(v) is str:
        return parse_timestamp(v)
    if type(v) is int:
        return ops.check_timestamp(v * 1_000_000_000)
    raise CELEvalError("no such overload")


@function("duration(string) -> duration", "duration(duration) -> duration")
def to_duration(v: Any) -> Duration:
    if type(v) is Duration:
        return v
    if type(v) is str:
        return parse_duration(v)
    raise CELEvalError("no such overload")


@function("dyn(A) -> dyn")
def to_dyn(v: Any) -> Any:
    return v


@function("type(A) -> type(A)")
def type_of(v: Any) -> CelType:
    return CelType(type_name(v))


def _validate_literal(name: str, convert):
    """cel-go's ValidateDurationLiterals / ValidateTimestampLiterals: `invalid <fn> argument`, at the literal."""

    def validator(args: tuple) -> tuple[str, int] | None:
        if len(args) == 1 and type(args[0]) in (str, int):
            try:
                convert(args[0])
            except CELEvalError:
                return f"invalid {name} argument", 0
        return None

    return validator


constant_validator("timestamp", _validate_literal("timestamp", lambda v: to_timestamp(v)), member=False)
constant_validator("duration", _validate_literal("duration", lambda v: to_duration(v)), member=False)


# --- timestamp and duration accessors ---
def _ts_getter(name: str, fn):
    @function(f"timestamp.{name}() -> int", f"timestamp.{name}(string) -> int")
    def getter(ts: Timestamp, tz: str | None = None) -> int:
        return fn(local_datetime(ts, tz), ts)

    getter.__name__ = name
    return getter


_ts_getter("getFullYear", lambda d, ts: d.year)
_ts_getter("getMonth", lambda d, ts: d.month - 1)
_ts_getter("getDayOfYear", lambda d, ts: d.timetuple().tm_yday - 1)
_ts_getter("getDayOfMonth", lambda d, ts: d.day - 1)
_ts_getter("getDate", lambda d, ts: d.day)
_ts_getter("getDayOfWeek", lambda d, ts: (d.weekday() + 1) % 7)
_ts_getter("getHours", lambda d, ts: d.hour)
_ts_getter("getMinutes", lambda d, ts: d.minute)
_ts_getter("getSeconds", lambda d, ts: d.second)
_ts_getter("getMilliseconds", lambda d, ts: (ts.nanos % 1_000_000_000) // 1_000_000)


@function("duration.getHours() -> int")
def dur_hours(d: Duration) -> int:
    return int(d.nanos / 3_600_000_000_000)


@function("duration.getMinutes() -> int")
def dur_minutes(d: Duration) -> int:
    return int(d.nanos / 60_000_000_000)


@function("duration.getSeconds() -> int")
def dur_seconds(d: Duration) -> int:
    return int(d.nanos / 1_000_000_000)


@function("duration.getMilliseconds() -> int")
def dur_millis(d: Duration) -> int:
    n = abs(d.nanos) % 1_000_000_000 // 1_000_000
    return -n if d.nanos < 0 else n


__all__ = ["format_double", "to_string", "base64"]
