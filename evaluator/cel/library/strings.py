"""cel-go's strings extension at the version Kubernetes pins (`ext.Strings(ext.StringsVersion(2))`).

Indexes count code points, as cel-go's rune slices do. `reverse` is version 3 and so is not declared.
Costs follow Kubernetes' CostEstimator.CallCost (pkg/cel/library/cost.go), which wins over cel-go's
defaults for these names; `charAt` has no entry there and costs cel-go's flat 1.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.support import GO_ESCAPES
from evaluator.cel.library.strings_format import KUBERNETES_VERSION, check_format_call, format_string
from evaluator.cel.registry import REGISTRY, Registry, constant_validator, function

__all__ = [
    "char_at",
    "index_of",
    "last_index_of",
    "lower_ascii",
    "upper_ascii",
    "replace",
    "split",
    "substring",
    "trim",
    "join",
    "quote",
    "format_",
    "check_format_call",
    "reverse",
    "strings_registry",
    "TRIM_CHARS",
]

# Go's unicode.IsSpace (strings.TrimSpace): not the zero-width spaces, not U+001C..U+001F.
TRIM_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
_LOWER = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})
_UPPER = str.maketrans({chr(c): chr(c - 32) for c in range(ord("a"), ord("z") + 1)})


# --- costs (Kubernetes CostEstimator.CallCost) ---
def _receiver_scan_cost(args: tuple, result: Any) -> int:
    """lowerAscii, upperAscii, substring, trim: ceil(size * 0.1), size in code points."""
    return math.ceil(len(args[0]) * 0.1)


def _receiver_build_cost(args: tuple, result: Any) -> int:
    """replace, split: traversal plus construction, ceil(size * 2 * 0.1)."""
    return math.ceil(len(args[0]) * 2 * 0.1)


def _join_cost(args: tuple, result: Any) -> int:
    return math.ceil(len(result) * 2 * 0.1) if type(result) is str else 1


def _index_cost(args: tuple, result: Any) -> int:
    """indexOf / lastIndexOf: Kubernetes' traversalCost of the receiver, floor(bytes * 0.1)."""
    return int(len(args[0].encode("utf-8", "surrogatepass")) * 0.1)


def _format_cost(args: tuple, result: Any) -> int:
    """cel-go's default for string_format / strings_quote: ceil(size of the first argument * 0.1)."""
    return math.ceil(len(args[0]) * 0.1)


# --- functions ---
@function("string.charAt(int) -> string")
def char_at(s: str, i: int) -> str:
    if i < 0 or i > len(s):
        raise CELEvalError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


@function("string.indexOf(string) -> int", "string.indexOf(string, int) -> int", cost=_index_cost)
def index_of(s: str, sub: str, offset: int = 0) -> int:
    found = _index_without_search(s, sub, offset)
    return s.find(sub, offset) if found is None else found


@function("string.lastIndexOf(string) -> int", "string.lastIndexOf(string, int) -> int", cost=_index_cost)
def last_index_of(s: str, sub: str, offset: int | None = None) -> int:
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode("utf-8", "surrogatepass")) < len(sub.encode("utf-8", "surrogatepass")):
            return -1
        offset = len(s) - 1
    found = _index_without_search(s, sub, offset)
    return s.rfind(sub, 0, offset + len(sub)) if found is None else found


def _index_without_search(s: str, sub: str, offset: int) -> int | None:
    """What indexOf and lastIndexOf answer before searching: a negative offset is an error, an empty
    substring is found at the offset (at most the end), an offset past the end finds nothing."""
    if offset < 0:
        raise CELEvalError(f"index out of range: {offset}")
    if sub == "":
        return min(offset, len(s))
    if offset >= len(s):
        return -1
    return None


@function("string.lowerAscii() -> string", cost=_receiver_scan_cost)
def lower_ascii(s: str) -> str:
    return s.translate(_LOWER)


@function("string.upperAscii() -> string", cost=_receiver_scan_cost)
def upper_ascii(s: str) -> str:
    return s.translate(_UPPER)


@function(
    "string.replace(string, string) -> string",
    "string.replace(string, string, int) -> string",
    cost=_receiver_build_cost,
)
def replace(s: str, old: str, new: str, n: int = -1) -> str:
    """Go's strings.Replace: a negative n replaces all; an empty `old` matches around every code point."""
    return s.replace(old, new, n if n >= 0 else -1)


@function(
    "string.split(string) -> list(string)", "string.split(string, int) -> list(string)", cost=_receiver_build_cost
)
def split(s: str, sep: str, n: int = -1) -> list[str]:
    """Go's strings.SplitN: n == 0 gives [], n < 0 all parts, an empty separator splits code points."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if 0 < n < len(chars):
            return chars[: n - 1] + ["".join(chars[n - 1 :])]
        return chars
    return s.split(sep, n - 1 if n > 0 else -1)


@function("string.substring(int) -> string", "string.substring(int, int) -> string", cost=_receiver_scan_cost)
def substring(s: str, start: int, end: int | None = None) -> str:
    if end is None:
        if start < 0 or start > len(s):
            raise CELEvalError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CELEvalError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise CELEvalError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise CELEvalError(f"index out of range: {end}")
    return s[start:end]


@function("string.trim() -> string", cost=_receiver_scan_cost)
def trim(s: str) -> str:
    return s.strip(TRIM_CHARS)


@function("list(string).join() -> string", "list(string).join(string) -> string", cost=_join_cost)
def join(items: list, sep: str = "") -> str:
    for item in items:
        if type(item) is not str:
            raise CELEvalError(f"join: invalid input: {_go_value_text(item)}")
    return sep.join(items)


def _go_value_text(v: Any) -> str:
    from evaluator.cel.library.stdlib import to_string

    try:
        return to_string(v)
    except CELEvalError:
        return repr(v)


@function("strings.quote(string) -> string", cost=_format_cost)
def quote(s: str) -> str:
    """Wrap in double quotes, escaping CEL's escape characters so the result prints literally."""
    out = ['"']
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        out.append(GO_ESCAPES.get(ch, ch))
    out.append('"')
    return "".join(out)


@function("string.format(list(dyn)) -> string", cost=_format_cost)
def format_(fmt: str, args: list) -> str:
    return format_string(fmt, args, KUBERNETES_VERSION)


def reverse(s: str) -> str:
    """Strings version 3's `reverse` (code points); not in Kubernetes, so only `strings_registry` declares it."""
    return s[::-1]


def strings_registry(version: int, base: Registry = REGISTRY) -> Registry:
    """A copy of `base` with cel-go's strings extension at `version` instead of Kubernetes' 2.

    For checking against cel-spec's string_ext tests, which follow the newest version: 3 adds `reverse`,
    4 the rewritten `format` (`%e` as `2.718280e+00`, `%d`/`%f`/`%e` on any number, `%s` of lists and maps
    without CEL quoting).
    """
    copy = Registry()
    for name in base.names():
        for o in base.overloads(name):
            impl = o.impl
            if name == "format" and o.member and version >= 4:
                impl = functools.partial(_format_with_version, version=version)
            copy.add(o.signature(), impl, cost=o.cost, id=o.id)
    if version >= 3:
        copy.add("string.reverse() -> string", reverse, cost=_receiver_scan_cost, id="string_reverse")
    return copy


def _format_with_version(fmt: str, args: list, *, version: int) -> str:
    return format_string(fmt, args, version)


def _validate_format(args: tuple) -> str | None:
    """cel-go's stringFormatValidator for a literal format string and a literal list: unknown clauses,
    bad precisions, too few or too many arguments. Argument *types* are the checker's business (static
    types are not known here), so every element is taken as dyn and only type-independent errors show."""
    if len(args) != 2 or type(args[0]) is not str or type(args[1]) not in (list, tuple):
        return None
    problem = check_format_call(args[0], ["dyn"] * len(args[1]))
    return problem[0] if problem else None


constant_validator("format", _validate_format)
