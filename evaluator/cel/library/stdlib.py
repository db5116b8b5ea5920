"""The CEL standard library: operators, size, string predicates, conversions, time accessors.

Operators are declared here for the type checker; the compiler calls `operators.py` directly for speed.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Callable

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.support import nonfinite
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
# A conversion dispatches on the argument's exact CEL type (a bool is no int); each overload's signature and
# implementation come from one table entry.
_PY_TYPES = {
    "int": int,
    "uint": UInt,
    "double": float,
    "string": str,
    "bytes": bytes,
    "bool": bool,
    "timestamp": Timestamp,
    "duration": Duration,
}


def _no_such_overload(v: Any) -> Any:
    raise CELEvalError("no such overload")


def _same(v: Any) -> Any:
    return v


def _conversion(
    result: str,
    by_argument: dict[str, Callable[[Any], Any]],
    *,
    cost: Any = None,
    other: Callable[[Any], Any] = _no_such_overload,
) -> Callable[[Any], Any]:
    """Declare `result(argument) -> result` for each entry (in its order) and return the implementation."""
    table = {_PY_TYPES[argument]: convert for argument, convert in by_argument.items()}

    def conversion(v: Any) -> Any:
        return table.get(type(v), other)(v)

    conversion.__name__ = f"to_{result}"
    function(*(f"{result}({argument}) -> {result}" for argument in by_argument), cost=cost)(conversion)
    return conversion


def _double_to_int(d: float) -> int:
    if math.isnan(d) or d <= -9.2233720368547758e18 or d >= 9.2233720368547758e18:
        raise CELEvalError("integer overflow")
    return int(d)


def _string_to_int(s: str) -> int:
    try:
        return ops.check_int(int(s, 10))
    except ValueError:
        raise CELEvalError(f'strconv.ParseInt: parsing "{s}": invalid syntax') from None


def _double_to_uint(d: float) -> UInt:
    if math.isnan(d) or d < 0 or d >= 1.8446744073709552e19:
        raise CELEvalError("unsigned integer overflow")
    return UInt(int(d))


def _string_to_uint(s: str) -> UInt:
    try:
        n = int(s, 10)
    except ValueError:
        raise CELEvalError(f'strconv.ParseUint: parsing "{s}": invalid syntax') from None
    if s.startswith(("-", "+")) or n > UINT64_MAX:
        raise CELEvalError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    return UInt(n)


def _string_to_double(s: str) -> float:
    try:
        return float(s)
    except ValueError:
        raise CELEvalError(f'strconv.ParseFloat: parsing "{s}": invalid syntax') from None


to_int = _conversion(
    "int",
    {
        "int": _same,
        "uint": lambda u: ops.check_int(int(u)),
        "double": _double_to_int,
        "string": _string_to_int,
        "timestamp": lambda ts: ts.seconds,
    },
)
to_uint = _conversion(
    "uint", {"int": ops.check_uint, "uint": _same, "double": _double_to_uint, "string": _string_to_uint}
)
to_double = _conversion("double", {"int": float, "uint": float, "double": _same, "string": _string_to_double})


def format_double(d: float) -> str:
    """Go's %g with the shortest representation (what cel-go's string(double) prints)."""
    special = nonfinite(d)
    if special is not None:
        return special
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


def _bytes_to_string(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise CELEvalError("invalid UTF-8 in bytes, cannot convert to string") from None


def _library_string(v: Any) -> str:
    """A library type that converts to a string (net.IP, net.CIDR, ...) says how; others have no overload."""
    to_str = getattr(v, "cel_string", None)
    if to_str is None:
        raise CELEvalError("no such overload")
    return to_str()


to_string = _conversion(
    "string",
    {
        "string": _same,
        "int": str,
        "uint": lambda u: str(int(u)),
        "double": format_double,
        "bool": lambda b: "true" if b else "false",
        "bytes": _bytes_to_string,
        "timestamp": timestamp_to_string,
        "duration": duration_to_string,
    },
    cost=_bytes_conversion_cost,
    other=_library_string,
)


to_bytes = _conversion("bytes", {"bytes": _same, "string": lambda s: s.encode("utf-8")}, cost=_bytes_conversion_cost)

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


def _string_to_bool(s: str) -> bool:
    if s in _BOOL_STRINGS:
        return _BOOL_STRINGS[s]
    raise CELEvalError(f'strconv.ParseBool: parsing "{s}": invalid syntax')


to_bool = _conversion("bool", {"bool": _same, "string": _string_to_bool})
to_timestamp = _conversion(
    "timestamp",
    {"string": parse_timestamp, "timestamp": _same, "int": lambda n: ops.check_timestamp(n * 1_000_000_000)},
)
to_duration = _conversion("duration", {"string": parse_duration, "duration": _same})


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
