"""Regular expressions with RE2 semantics: `matches` (cel-go's standard overloads, replacing cel-python's)
and Kubernetes' `find` / `findAll` (pkg/cel/library/regex.go).

Patterns are compiled once (a bounded cache, errors cached too) by google-re2 with logging off, so nothing
reaches stderr. RE2's error texts are reworded as Go's regexp/syntax words them, because cel-go reports
Go's (`error parsing regexp: missing closing ]: `[a``). Constant patterns are rejected before evaluation
as Kubernetes does: `matches` by cel-go's regex literal validator ("invalid matches argument"),
`find`/`findAll` when cel-go's regex optimisation compiles them at program instantiation.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import re2

from evaluator.cel.errors import CELEvalError
from evaluator.cel.registry import NOT_CONSTANT, constant_validator, function

__all__ = ["compile_pattern", "go_regexp_error", "matches", "find", "find_all", "INVALID_MATCHES_ARGUMENT"]

INVALID_MATCHES_ARGUMENT = "invalid matches argument"

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

# RE2's error code texts -> Go regexp/syntax's ErrorCode texts.
_GO_CODES = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid UTF-8": "invalid UTF-8",
}


def go_regexp_error(pattern: str, re2_message: str) -> str:
    """`error parsing regexp: <code>: `<fragment>``, as Go's regexp.Compile reports it."""
    code, _, fragment = re2_message.partition(": ")
    if code.startswith("pattern too large"):
        return f"error parsing regexp: expression too large: `{pattern}`"
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{fragment}`"


@lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> tuple[Any, str | None]:
    """(compiled regex, None) or (None, Go's error text); compiled once per pattern."""
    if "\\C" in pattern.replace("\\\\", ""):
        return None, "error parsing regexp: invalid escape sequence: `\\C`"  # RE2 has \C, Go does not
    try:
        # A bytes pattern over UTF-8 bytes: positions are byte offsets, as in Go, and the text is
        # encoded once per call (google-re2 re-encodes a str text on every search).
        return re2.compile(pattern.encode("utf-8", "surrogatepass"), _OPTIONS), None
    except re2.error as e:
        raw = e.args[0] if e.args else ""
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        return None, go_regexp_error(pattern, message)
    except (TypeError, ValueError) as e:  # e.g. text that cannot be UTF-8 encoded
        return None, f"error parsing regexp: invalid UTF-8: `{pattern!s}`: {e}"


def _compiled(pattern: str, prefix: str = "") -> Any:
    regex, error = compile_pattern(pattern)
    if error is not None:
        raise CELEvalError(prefix + error)
    return regex


# --- costs (cel-go's runtime cost for matches; Kubernetes' CallCost for find/findAll: the same formula) ---
def _regex_cost(args: tuple, result: Any) -> int:
    string_cost = math.ceil((1.0 + len(args[0])) * 0.1)
    regex_cost = math.ceil(len(args[1]) * 0.25)
    return string_cost * regex_cost


# cel-go's global overload `matches` has no cost rule of its own: a flat 1.
def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogatepass")


@function("matches(string, string) -> bool", cost=1)
def matches_global(s: str, pattern: str) -> bool:
    return _compiled(pattern).search(_utf8(s)) is not None


@function("string.matches(string) -> bool", cost=_regex_cost)
def matches(s: str, pattern: str) -> bool:
    return _compiled(pattern).search(_utf8(s)) is not None


@function("string.find(string) -> string", cost=_regex_cost)
def find(s: str, pattern: str) -> str:
    match = _compiled(pattern, "Illegal regex: ").search(_utf8(s))
    return _text(match.group(0)) if match is not None else ""


def _rune_width(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


@function("string.findAll(string) -> list(string)", "string.findAll(string, int) -> list(string)", cost=_regex_cost)
def find_all(s: str, pattern: str, n: int = -1) -> list[str]:
    """Go's FindAllString: at most n matches (all when n < 0); an empty match right after a match is skipped."""
    regex = _compiled(pattern, "Illegal regex: ")
    data = _utf8(s)
    if n < 0:
        n = len(data) + 1
    found: list[str] = []
    pos, prev_end, end = 0, -1, len(data)
    while len(found) < n and pos <= end:
        match = regex.search(data, pos)
        if match is None:
            break
        start, stop = match.span()
        accept = True
        if stop == pos and start == stop:
            if start == prev_end:
                accept = False
            pos += _rune_width(data[pos]) if pos < end else 1
        else:
            pos = stop
        prev_end = stop
        if accept:
            found.append(_text(match.group(0)))
    return found


# --- compile-time checks of constant patterns ---
def _bad(pattern: Any) -> str | None:
    if pattern is NOT_CONSTANT or type(pattern) is not str:
        return None
    return compile_pattern(pattern)[1]


def validate_matches(args: tuple, member: bool = True) -> str | tuple[str, int] | None:
    """cel-go's ValidateRegexLiterals checks the first non-receiver argument of `matches`: the pattern of
    `s.matches(p)`, but the *string* of the global `matches(s, p)`; the global form's constant pattern
    then fails at program instantiation (cel-go's MatchesRegexOptimization) with Go's error text."""
    if len(args) != 2:
        return None
    if member:
        return (INVALID_MATCHES_ARGUMENT, 1) if _bad(args[1]) else None
    if _bad(args[0]):
        return (INVALID_MATCHES_ARGUMENT, 0)
    return _bad(args[1])


def validate_find(args: tuple) -> str | None:
    """Kubernetes' FindRegexOptimization / FindAllRegexOptimization: a constant pattern is compiled when the
    program is built, and a bad one fails there with Go's `error parsing regexp: ...`."""
    return _bad(args[1]) if len(args) >= 2 else None


constant_validator("matches", validate_matches, member=True)
constant_validator("matches", lambda args: validate_matches(args, member=False), member=False)
constant_validator("find", validate_find)
constant_validator("findAll", validate_find)
