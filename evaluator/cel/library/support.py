"""Small helpers the library modules share: Go's string quoting, the traversal cost, and the declarations
every library type repeats (`x(string)` with `isX(string)`, and `isGreaterThan`/`isLessThan`/`compareTo`)."""

from __future__ import annotations

import math
import unicodedata
from typing import Any, Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.registry import function
from evaluator.cel.runtime import actual_size

__all__ = [
    "go_quote",
    "string_cost",
    "actual_size",
    "GO_ESCAPES",
    "parses",
    "declare_parser",
    "declare_ordering",
    "nonfinite",
]


# The escapes Go's strconv.Quote writes (and CEL's strings.quote, which prints the same ones).
GO_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def go_quote(s: str, lone_surrogate: str | None = None) -> str:
    """Go's `strconv.Quote` (also Go's `%q`). By default a surrogate-escaped byte (text decoded from Go's bytes)
    prints as Go prints an invalid byte, `\\xNN`; a CEL string passes `lone_surrogate`, what Go holds instead."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in GO_ESCAPES:
            out.append(GO_ESCAPES[ch])
        elif lone_surrogate is not None and 0xD800 <= code <= 0xDFFF:
            out.append(lone_surrogate)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not valid UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == " " or (ch.isprintable() and unicodedata.category(ch) != "Zs"):
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def nonfinite(x: float, infinity: str = "+Inf", minus_infinity: str = "-Inf") -> str | None:
    """How a printer spells NaN and the infinities (Go's strconv: NaN, +Inf, -Inf), or None for a finite `x`."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return infinity if x > 0 else minus_infinity
    return None


def string_cost(args: tuple, _result=None) -> int:
    """Kubernetes' cost of parsing the first argument: ceil(size * StringTraversalCostFactor)."""
    return math.ceil(actual_size(args[0]) * 0.1)


def parses(parse: Callable[[str], object], error: type[Exception], text: str) -> bool:
    """The `isX(string)` predicates: whether `parse` accepts `text`, its `error` meaning no."""
    try:
        parse(text)
    except error:
        return False
    return True


def declare_parser(name: str, predicate: str, type_name: str, parse: Callable[[str], Any]) -> None:
    """Declare a library type's conversion `name(string) -> type_name` and its test `predicate(string) -> bool`
    (whether the conversion succeeds), both costing the string's traversal; `parse` raises CELEvalError."""

    def is_valid(text: str) -> bool:
        return parses(parse, CELEvalError, text)

    function(f"{name}(string) -> {type_name}", cost=string_cost)(parse)
    function(f"{predicate}(string) -> bool", cost=string_cost)(_of_module(parse, is_valid))


def declare_ordering(receiver: str, compare: Callable[[Any, Any], int]) -> None:
    """Declare `compareTo`, `isGreaterThan` and `isLessThan` of a library type, all read from its one
    comparison (-1, 0 or 1), each costing 1 as Kubernetes charges them."""

    def is_greater_than(a: Any, b: Any) -> bool:
        return compare(a, b) == 1

    def is_less_than(a: Any, b: Any) -> bool:
        return compare(a, b) == -1

    for name, result, impl in (
        ("compareTo", "int", compare),
        ("isGreaterThan", "bool", _of_module(compare, is_greater_than)),
        ("isLessThan", "bool", _of_module(compare, is_less_than)),
    ):
        function(f"{receiver}.{name}({receiver}) -> {result}", cost=1)(impl)


def _of_module(model: Callable, impl: Callable) -> Callable:
    """`impl` marked as written in `model`'s library module: versions.py gates an overload by the module of its
    implementation (IP from 1.30, semver from 1.33, ...), and the generated ones belong to their type's."""
    impl.__module__ = model.__module__
    return impl
