"""`string.format` exactly as cel-go's strings extension prints, in both of its implementations.

Kubernetes pins `ext.Strings(ext.StringsVersion(2))`, which keeps cel-go's first formatter
(ext/formatting.go): `%f`/`%e` go through golang.org/x/text's en-US printer (digit grouping,
`3.140000×10⁰⁰`, and the `%e` precision read as a *width*), `%s` inside lists and maps prints CEL
literals (`["a", b"x", duration("1s")]`, `{"k":1}`), `%d` accepts only integers. cel-spec's conformance
file describes the rewritten formatter of strings version 4 (ext/formatting_v2.go); `version=4` gives
that, so both can be checked. Parsing walks UTF-8 bytes as Go does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.stdlib import to_string
from evaluator.cel.library import support
from evaluator.cel.library.support import nonfinite
from evaluator.cel.library.timeconv import timestamp_to_string
from evaluator.cel.values import LIST_TYPES, CelType, Duration, Timestamp, UInt, type_name

__all__ = ["format_string", "check_format_call", "go_quote", "KUBERNETES_VERSION"]

KUBERNETES_VERSION = 2
_DEFAULT_PRECISION = 6
# Our guard against a `%.99999999f` memory bomb; cel-go v2 has no limit (v5 defaults to 100).
_MAX_PRECISION = 10_000
_NANOS = 1_000_000_000


class _ClauseError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _bad(kind: str, value_or_type: Any, *, is_type: bool = False) -> _ClauseError:
    name = value_or_type if is_type else type_name(value_or_type)
    return _ClauseError(_MESSAGES[kind].format(name))


_MESSAGES = {
    "b": "only integers and bools can be formatted as binary, was given {}",
    "d": "decimal clause can only be used on integers, was given {}",
    "f": "fixed-point clause can only be used on doubles, was given {}",
    "x": "only integers, byte buffers, and strings can be formatted as hex, was given {}",
    "o": "octal clause can only be used on integers, was given {}",
    "e": "scientific clause can only be used on doubles, was given {}",
    "s": "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
    "durations, and timestamps, was given {}",
}
_MESSAGES_V4 = {
    "b": "only ints, uints, and bools can be formatted as binary, was given {}",
    "d": "decimal clause can only be used on ints, uints, and doubles, was given {}",
    "f": "fixed-point clause can only be used on ints, uints, and doubles, was given {}",
    "x": "only ints, uints, bytes, and strings can be formatted as hex, was given {}",
    "o": "octal clause can only be used on ints and uints, was given {}",
    "e": "scientific clause can only be used on ints, uints, and doubles, was given {}",
    "s": _MESSAGES["s"],
}


# --- Go printing helpers -------------------------------------------------------------------------
def _is_int(v: Any) -> bool:
    return type(v) is int or type(v) is UInt


def go_quote(s: str) -> str:
    """Go's strconv.Quote (`%q`) of a CEL string, where a lone surrogate prints as `\\ufffd`."""
    return support.go_quote(s, lone_surrogate="\\ufffd")


def _shortest_fixed(x: float) -> str:
    """Go's strconv.FormatFloat(x, 'f', -1, 64): shortest round-trip digits, never an exponent."""
    return format(Decimal(repr(x)).normalize(), "f")


def _duration_seconds_text(d: Duration) -> str:
    """cel-go's string(duration): Go's Duration.Seconds() as a float, printed with 'f', -1."""
    whole = abs(d.nanos) // _NANOS * (-1 if d.nanos < 0 else 1)  # Go's truncating division
    return _shortest_fixed(float(whole) + (d.nanos - whole * _NANOS) / 1e9) + "s"


def _go_fixed(x: float, prec: int) -> str:
    """Go fmt's `%.Nf` (no locale)."""
    return nonfinite(x) or f"{x:.{prec}f}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _xtext_fixed(x: float, prec: int) -> str:
    """golang.org/x/text en-US `%.Nf`: grouped thousands, ∞ for infinities, no sign on zero."""
    special = nonfinite(x, "∞", "-∞")
    if special is not None:
        return special
    if x == 0:
        x = 0.0
    return f"{x:,.{prec}f}"


def _xtext_sci(x: float, width: int | None) -> str:
    """golang.org/x/text en-US `%<width>e`: six fraction digits, `×10` and a superscript exponent."""
    text = nonfinite(x, "∞", "-∞")
    if text is None:
        if x == 0:
            x = 0.0
        mantissa, _, exp = f"{x:.6e}".partition("e")
        e = int(exp)
        exponent = ("-" if e < 0 else "") + f"{abs(e):02d}"
        text = mantissa + "×10" + exponent.translate(_SUPERSCRIPT)
    if width and len(text) < width:
        text = " " * (width - len(text)) + text
    return text


def _as_double_v2(arg: Any, kind: str) -> float:
    if type(arg) is float:
        return arg
    if type(arg) is str and arg in ("NaN", "Infinity", "-Infinity"):
        return float(arg.replace("Infinity", "inf"))
    raise _bad(kind, arg)


_STRING_CONVERTIBLE = frozenset({str, bool, int, UInt, float, bytes, Timestamp})


# --- version 2 (Kubernetes) ---------------------------------------------------------------------
def _v2_literal(arg: Any) -> str:
    """One list element or map value, printed as a CEL literal (clauseForType + quoteForCEL)."""
    t = type(arg)
    if t is int or t is UInt:
        return str(int(arg))
    if t is str:
        return go_quote(arg)
    if t is bytes:
        return "b" + go_quote(_v2_string(arg))
    if t is bool or arg is None or t is CelType:
        return _v2_string(arg)
    if t is Timestamp:
        return f"timestamp({go_quote(timestamp_to_string(arg))})"
    if t is Duration:
        return f"duration({go_quote(_duration_seconds_text(arg))})"
    if t in LIST_TYPES:
        return _v2_list(arg)
    if t is dict or isinstance(arg, Mapping):
        return _v2_map(arg)
    if t is float:
        text = _go_fixed(arg, _DEFAULT_PRECISION)
        return go_quote(text) if math.isnan(arg) or math.isinf(arg) else text
    raise _ClauseError(f"no formatting function for {type_name(arg)}")


def _v2_list(items: Sequence) -> str:
    return "[" + ", ".join(_v2_literal(x) for x in items) + "]"


def _v2_map(m: Mapping) -> str:
    entries = []
    for key, value in m.items():
        tk = type(key)
        if tk is str:
            key_text = go_quote(key)
        elif tk is bool:
            key_text = "true" if key else "false"
        elif tk is int or tk is UInt:
            key_text = str(int(key))
        else:
            raise _ClauseError(f"no formatting function for map key of type {type_name(key)}")
        entries.append((key_text, _v2_literal(value)))
    entries.sort(key=lambda e: e[0])
    return "{" + ", ".join(f"{k}:{v}" for k, v in entries) + "}"


def _cel_string(arg: Any) -> str:
    try:
        return to_string(arg)
    except CELEvalError as exc:
        raise _ClauseError(f'could not convert argument "{exc.message}" to string') from None


# `%s` by the argument's exact type; scalars as CEL's string() converts them, a map of any Mapping type.
_V2_STRINGS: dict[type, Callable[[Any], str]] = {
    **dict.fromkeys(LIST_TYPES, _v2_list),
    Duration: _duration_seconds_text,
    CelType: lambda t: t.name,
    type(None): lambda _: "null",
    **dict.fromkeys(_STRING_CONVERTIBLE, _cel_string),
}


def _v2_string(arg: Any) -> str:
    text = _V2_STRINGS.get(type(arg))
    if text is not None:
        return text(arg)
    if isinstance(arg, Mapping):
        return _v2_map(arg)
    raise _bad("s", arg)


def _v2_decimal(arg: Any) -> str:
    if _is_int(arg):
        return str(int(arg))
    raise _bad("d", arg)


def _v2_binary(arg: Any) -> str:
    if type(arg) is bool:
        return "1" if arg else "0"
    if _is_int(arg):
        return format(int(arg), "b")
    raise _bad("b", arg)


def _v2_octal(arg: Any) -> str:
    if _is_int(arg):
        return format(int(arg), "o")
    raise _bad("o", arg)


def _hex(upper: bool, kind_messages: dict) -> Callable[[Any], str]:
    def clause(arg: Any) -> str:
        t = type(arg)
        if t is int or t is UInt:
            text = format(int(arg), "x")
        elif t is str:
            text = arg.encode("utf-8", "surrogatepass").hex()
        elif t is bytes:
            text = arg.hex()
        else:
            raise _ClauseError(kind_messages["x"].format(type_name(arg)))
        return text.upper() if upper else text

    return clause


def _v2_clause(verb: str, precision: int | None) -> Callable[[Any], str] | None:
    if verb == "s":
        return _v2_string
    if verb == "d":
        return _v2_decimal
    if verb == "f":
        prec = _DEFAULT_PRECISION if precision is None else precision
        return lambda a: _xtext_fixed(_as_double_v2(a, "f"), prec)
    if verb == "e":
        # cel-go builds "%<precision>e": the precision becomes x/text's width; "%0e" is a flag, no width.
        width = _DEFAULT_PRECISION if precision is None else precision
        return lambda a: _xtext_sci(_as_double_v2(a, "e"), width)
    if verb == "b":
        return _v2_binary
    if verb in ("x", "X"):
        return _hex(verb == "X", _MESSAGES)
    if verb == "o":
        return _v2_octal
    return None


# --- version 4 (cel-spec) -----------------------------------------------------------------------
def _v4_double(x: float) -> str:
    return _v4_special(x) or _shortest_fixed(x)


def _v4_string(arg: Any) -> str:
    t = type(arg)
    if t is bool:
        return "true" if arg else "false"
    if t is int or t is UInt:
        return str(int(arg))
    if t is float:
        return _v4_double(arg)
    if t is bytes:
        return arg.decode("utf-8", "replace")
    if t is str:
        return arg
    if t is Duration:
        return _duration_seconds_text(arg)
    if t is Timestamp:
        return timestamp_to_string(arg)
    if arg is None:
        return "null"
    if t is CelType:
        return arg.name
    if t in LIST_TYPES:
        return "[" + ", ".join(_v4_string(x) for x in arg) + "]"
    if t is dict or isinstance(arg, Mapping):
        entries = sorted((_v4_string(k), _v4_string(v)) for k, v in arg.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    raise _ClauseError(_MESSAGES_V4["s"].format(type_name(arg)))


def _v4_number(arg: Any, kind: str) -> float | None:
    t = type(arg)
    if t is int or t is UInt:
        return float(int(arg))
    if t is float:
        return arg
    raise _ClauseError(_MESSAGES_V4[kind].format(type_name(arg)))


def _v4_special(x: float) -> str | None:
    return nonfinite(x, "Infinity", "-Infinity")


def _v4_clause(verb: str, precision: int | None) -> Callable[[Any], str] | None:
    prec = _DEFAULT_PRECISION if precision is None else precision
    if verb == "s":
        return _v4_string
    if verb == "d":

        def decimal(a: Any) -> str:
            if _is_int(a):
                return str(int(a))
            if type(a) is float:
                return _v4_double(a)
            raise _ClauseError(_MESSAGES_V4["d"].format(type_name(a)))

        return decimal
    if verb == "f":

        def fixed(a: Any) -> str:
            x = _v4_number(a, "f")
            return _v4_special(x) or f"{x:.{prec}f}"

        return fixed
    if verb == "e":

        def sci(a: Any) -> str:
            x = _v4_number(a, "e")
            return _v4_special(x) or f"{x:.{prec}e}"

        return sci
    if verb == "b":

        def binary(a: Any) -> str:
            if type(a) is bool:
                return "1" if a else "0"
            if _is_int(a):
                return format(int(a), "b")
            raise _ClauseError(_MESSAGES_V4["b"].format(type_name(a)))

        return binary
    if verb in ("x", "X"):
        return _hex(verb == "X", _MESSAGES_V4)
    if verb == "o":

        def octal(a: Any) -> str:
            if _is_int(a):
                return format(int(a), "o")
            raise _ClauseError(_MESSAGES_V4["o"].format(type_name(a)))

        return octal
    return None


# --- the format-string walk, shared by evaluation and the compile-time check ---------------------
def _parse_precision(data: bytes, i: int) -> tuple[int, int | None]:
    """Returns (index after the precision, precision or None). Raises _ClauseError in cel-go's words."""
    if data[i] != 0x2E:  # '.'
        return i, None
    i += 1
    start = i
    while True:
        if i >= len(data):
            raise _ClauseError("error while parsing precision: could not find end of precision specifier")
        if not 0x30 <= data[i] <= 0x39:
            break
        i += 1
    digits = data[start:i].decode()
    if not digits:
        raise _ClauseError(
            "error while parsing precision: error while converting precision to integer: "
            'strconv.Atoi: parsing "": invalid syntax'
        )
    precision = int(digits)
    if precision > 2**63 - 1:
        raise _ClauseError(
            "error while parsing precision: error while converting precision to integer: "
            f'strconv.Atoi: parsing "{digits}": value out of range'
        )
    if precision > _MAX_PRECISION:
        raise _ClauseError(
            f"error while parsing precision: precision {precision} exceeds maximum allowed precision {_MAX_PRECISION}"
        )
    return i, precision


def _walk(fmt: str, count: int, on_clause: Callable[[int, str, int | None], str], checking: bool = False) -> str:
    """cel-go's parseFormatString: `%%` escapes, one argument per clause, errors worded as cel-go's.

    It fetches a clause's argument before looking past the `%`: at run time a missing argument is reported
    first ("index 0 out of range"); the compile-time checker's argument list never fails to fetch, so there a
    trailing `%` is "unexpected end of string" whatever the arguments (`checking`)."""
    data = fmt.encode("utf-8", "surrogatepass")
    out = bytearray()
    i, arg_index, n = 0, 0, len(data)
    while i < n:
        c = data[i]
        if c != 0x25:
            out.append(c)
            i += 1
            continue
        if i + 1 < n and data[i + 1] == 0x25:
            out.append(0x25)
            i += 2
            continue
        if arg_index >= count and not (checking and i + 1 >= n):
            raise CELEvalError(f"index {arg_index} out of range")
        if i + 1 >= n:
            raise CELEvalError("unexpected end of string")
        try:
            j, precision = _parse_precision(data, i + 1)
        except _ClauseError as e:
            raise CELEvalError(f"could not parse formatting clause: {e.message}") from None
        verb = chr(data[j])
        out += on_clause(arg_index, verb, precision).encode("utf-8", "surrogatepass")
        i = j + 1
        arg_index += 1
    return out.decode("utf-8", "surrogatepass")


def format_string(fmt: str, args: Sequence, version: int = KUBERNETES_VERSION) -> str:
    """`fmt.format(args)`; raises CELEvalError with cel-go's message."""
    pick = _v2_clause if version < 4 else _v4_clause

    def on_clause(index: int, verb: str, precision: int | None) -> str:
        clause = pick(verb, precision)
        if clause is None:
            raise CELEvalError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
        try:
            return clause(args[index])
        except _ClauseError as e:
            raise CELEvalError(f"error during formatting: {e.message}") from None
        except RecursionError:
            raise CELEvalError("error during formatting: value nested too deeply") from None

    return _walk(fmt, len(args), on_clause)


# Static types each clause accepts in cel-go's v2 format validator (outer type names; dyn always passes).
_ALLOWED_STATIC = {
    "s": {
        "list",
        "map",
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "google.protobuf.Timestamp",
        "bytes",
        "google.protobuf.Duration",
        "type",
        "null_type",
    },
    "d": {"int", "uint"},
    "f": {"double", "string"},
    "e": {"double", "string"},
    "b": {"int", "uint", "bool"},
    "x": {"int", "uint", "string", "bytes"},
    "X": {"int", "uint", "string", "bytes"},
    "o": {"int", "uint"},
}
_ALIASES = {"timestamp": "google.protobuf.Timestamp", "duration": "google.protobuf.Duration"}


def check_format_call(fmt: str, arg_types: Sequence[str]) -> tuple[str, int | None] | None:
    """Compile-time check of `'<literal>'.format([<list literal>])` (cel-go's stringFormatValidator).

    `arg_types` are the static outer type names of the list literal's elements ("dyn" passes anything).
    Returns (message, index of the offending element or None for the call itself), or None when valid.
    """
    requested = 0

    def on_clause(index: int, verb: str, precision: int | None) -> str:
        nonlocal requested
        requested += 1
        allowed = _ALLOWED_STATIC.get(verb)
        if allowed is None:
            raise CELEvalError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
        static = _ALIASES.get(arg_types[index], arg_types[index])
        if static not in ("dyn",) and not (len(static) == 1 and static.isupper()) and static not in allowed:
            kind = "x" if verb == "X" else verb
            raise _IndexedError(f"error during formatting: {_MESSAGES[kind].format(static)}", index)
        return ""

    try:
        _walk(fmt, len(arg_types), on_clause, checking=True)
    except _IndexedError as e:
        return e.message, e.index
    except CELEvalError as e:
        return e.message, None
    if len(arg_types) > requested:
        return (f"too many arguments supplied to string.format (expected {requested}, got {len(arg_types)})", None)
    return None


class _IndexedError(Exception):
    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.message = message
        self.index = index
