"""Name and label validators worded exactly like apimachinery's ``util/validation`` package.

Each returns a list of problem strings (empty when valid), as the Go functions do. The CEL format library
(`evaluator.cel.library.format`) reuses them through keyword options for the newer ``api/validate/content``
wording and Go byte lengths.
"""

from __future__ import annotations

import re
from typing import Callable

QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
DNS1123_LABEL_MAX = 63
DNS1035_LABEL_MAX = 63

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)


def _full(fmt: str) -> re.Pattern:
    return re.compile("^" + fmt + "$")


_QUALIFIED_NAME_RE = _full(_QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = _full(_LABEL_VALUE_FMT)
_DNS1123_LABEL_RE = _full(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = _full(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = _full(_DNS1035_LABEL_FMT)


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    parts = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {parts}regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


EMPTY_ERROR = "must be non-empty"

_QUALIFIED_NAME_PROBLEM = regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
_LABEL_VALUE_PROBLEM = regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
_DNS1123_LABEL_PROBLEM = regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc")
_DNS1123_SUBDOMAIN_PROBLEM = regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
_DNS1035_LABEL_PROBLEM = regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123")


def _matches(regex: re.Pattern, value: str) -> bool:
    # Go's regexp has no "$ before a final newline" quirk; fullmatch mirrors ^...$ exactly.
    return regex.fullmatch(value) is not None


# The keyword options let the CEL format library reuse these checks with the newer wording of
# apimachinery's ``api/validate/content`` package: lengths in bytes (``measure``), "bytes" rather than
# "characters" (``too_long``), "a valid label key" rather than "a qualified name" (``noun``).
Measure = Callable[[str], int]
TooLong = Callable[[int], str]


def is_qualified_name(
    value: str, *, measure: Measure = len, too_long: TooLong = max_len_error, noun: str = "a qualified name"
) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, measure=measure, too_long=too_long))
    else:
        return [
            noun
            + " "
            + _QUALIFIED_NAME_PROBLEM
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif measure(name) > QUALIFIED_NAME_MAX:
        errs.append("name part " + too_long(QUALIFIED_NAME_MAX))
    if not _matches(_QUALIFIED_NAME_RE, name):
        errs.append("name part " + _QUALIFIED_NAME_PROBLEM)
    return errs


def _checked(value: str, regex: re.Pattern, problem: str, limit: int, measure: Measure, too_long: TooLong) -> list[str]:
    """The shape every single-pattern validator shares: a length limit, then the pattern."""
    errs: list[str] = []
    if measure(value) > limit:
        errs.append(too_long(limit))
    if not _matches(regex, value):
        errs.append(problem)
    return errs


def is_valid_label_value(value: str, *, measure: Measure = len, too_long: TooLong = max_len_error) -> list[str]:
    return _checked(value, _LABEL_VALUE_RE, _LABEL_VALUE_PROBLEM, LABEL_VALUE_MAX, measure, too_long)


def is_dns1123_label(value: str, *, measure: Measure = len, dots_hint: bool = False) -> list[str]:
    """``dots_hint``: a valid subdomain is told "must not contain dots" (newer apimachinery)."""
    errs: list[str] = []
    if measure(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _matches(_DNS1123_LABEL_RE, value):
        dotted = dots_hint and _matches(_DNS1123_SUBDOMAIN_RE, value)
        errs.append("must not contain dots" if dotted else _DNS1123_LABEL_PROBLEM)
    return errs


def is_dns1123_subdomain(value: str, *, measure: Measure = len, too_long: TooLong = max_len_error) -> list[str]:
    return _checked(value, _DNS1123_SUBDOMAIN_RE, _DNS1123_SUBDOMAIN_PROBLEM, DNS1123_SUBDOMAIN_MAX, measure, too_long)


def is_dns1035_label(value: str, *, measure: Measure = len) -> list[str]:
    return _checked(value, _DNS1035_LABEL_RE, _DNS1035_LABEL_PROBLEM, DNS1035_LABEL_MAX, measure, max_len_error)


def validate_path_segment_name(name: str) -> list[str]:
    """apimachinery ``path.ValidatePathSegmentName`` (prefix=false)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    errs = []
    for bad in ("/", "%"):
        if bad in name:
            errs.append(f"may not contain '{bad}'")
    return errs
