"""Kubernetes' format library: `format.named(name)`, `format.<name>()` and `<Format>.validate(s)`.

The validators reproduce apimachinery's messages word for word (`k8s.io/apimachinery/pkg/util/validation`,
`pkg/api/validate/content`) and kube-openapi's strfmt checks for uuid, byte, date and datetime. The name
checks are `evaluator.k8s.names`' with Go byte lengths; the other patterns run on RE2 (Go's regexp
semantics: `$` is the end of the text).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import re2

from evaluator.cel.library.urls import URLError, parse_request_uri
from evaluator.cel.registry import function
from evaluator.cel.values import OPTIONAL_NONE, Optional
from evaluator.k8s import names

__all__ = ["Format", "CONSTANT_FORMATS"]

_UUID_RE = re2.compile("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_BASE64_RE = re2.compile("^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$")
_DATE_TIME_PATTERN = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
_DATE_TIME_RE = re2.compile(_DATE_TIME_PATTERN)


def _matches(pattern, s: str) -> bool:
    try:
        return pattern.search(s) is not None
    except UnicodeError:  # bytes that are not UTF-8 never match, as in Go
        return False


def _blen(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def _max_len_bytes(n: int) -> str:  # content.MaxLenError
    return f"must be no more than {n} bytes"


# Lengths are Go byte lengths; the label-key family counts in bytes and says so (`content` package).
def is_dns1123_label(value: str) -> list[str]:
    return names.is_dns1123_label(value, measure=_blen, dots_hint=True)


def is_dns1123_subdomain(value: str) -> list[str]:
    return names.is_dns1123_subdomain(value, measure=_blen)


def is_dns1035_label(value: str) -> list[str]:
    return names.is_dns1035_label(value, measure=_blen)


def is_qualified_name(value: str) -> list[str]:
    """content.IsLabelKey (IsQualifiedName): an optional DNS subdomain prefix, '/', and a name part."""
    return names.is_qualified_name(value, measure=_blen, too_long=_max_len_bytes, noun="a valid label key")


def is_label_value(value: str) -> list[str]:
    return names.is_valid_label_value(value, measure=_blen, too_long=_max_len_bytes)


def _mask_trailing_dash(name: str) -> str:
    """apimachinery's maskTrailingDash, byte for byte: it drops the last two bytes and appends 'a'."""
    data = name.encode("utf-8", "surrogatepass")
    if len(data) > 1 and data.endswith(b"-"):
        return (data[:-2] + b"a").decode("utf-8", "surrogateescape")  # a cut character never matches
    return name


def _prefixed(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    return lambda s: check(_mask_trailing_dash(s))


def _validate_uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except URLError as err:
        return [str(err)]
    return []


def is_date(s: str) -> bool:
    """Go's time.Parse("2006-01-02", s) succeeds."""
    if len(s) != 10 or s[4] != "-" or s[7] != "-":
        return False
    y, m, d = s[:4], s[5:7], s[8:]
    if not all(p.isascii() and p.isdigit() for p in (y, m, d)):
        return False
    year, month, day = int(y), int(m), int(d)
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return 1 <= day <= days


def is_date_time(s: str) -> bool:
    """kube-openapi strfmt.IsDateTime."""
    if _blen(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    try:
        m = _DATE_TIME_RE.search(parts[1])
    except UnicodeError:
        return False
    if m is None:
        return False
    return m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _check(ok: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda s: [] if ok(s) else [message]


@dataclass(frozen=True, eq=False)
class Format:
    """A named format; formats are equal when their names are."""

    cel_type_name = "kubernetes.NamedFormat"
    name: str
    validate: Callable[[str], list[str]]
    max_regex_size: int

    def __eq__(self, other) -> bool:
        return type(other) is Format and other.name == self.name

    def __hash__(self) -> int:
        return hash(("format", self.name))

    def __repr__(self) -> str:
        return f"format({self.name})"

    def cel_json(self) -> str:
        return self.name


_DATE_TIME_SIZE = len(_DATE_TIME_PATTERN)
CONSTANT_FORMATS: dict[str, Format] = {
    "dns1123Label": Format("DNS1123Label", is_dns1123_label, 30),
    "dns1123Subdomain": Format("DNS1123Subdomain", is_dns1123_subdomain, 60),
    "dns1035Label": Format("DNS1035Label", is_dns1035_label, 30),
    "qualifiedName": Format("QualifiedName", is_qualified_name, 60),
    "dns1123LabelPrefix": Format("DNS1123LabelPrefix", _prefixed(is_dns1123_label), 30),
    "dns1123SubdomainPrefix": Format("DNS1123SubdomainPrefix", _prefixed(is_dns1123_subdomain), 60),
    "dns1035LabelPrefix": Format("DNS1035LabelPrefix", _prefixed(is_dns1035_label), 30),
    "labelValue": Format("LabelValue", is_label_value, 40),
    "uri": Format("URI", _validate_uri, 1103),
    "uuid": Format(
        "uuid", _check(lambda s: _matches(_UUID_RE, s), "does not match the UUID format"), len(_UUID_RE.pattern)
    ),
    "byte": Format("byte", _check(lambda s: _matches(_BASE64_RE, s), "invalid base64"), 84),
    "date": Format("date", _check(is_date, "invalid date"), _DATE_TIME_SIZE),
    "datetime": Format("datetime", _check(is_date_time, "invalid datetime"), _DATE_TIME_SIZE),
}


# --- CEL functions -------------------------------------------------------------------------------


def _validate_cost(args: tuple, _result) -> int:
    fmt, s = args
    str_cost = math.ceil((1.0 + len(s)) * 0.1)
    regex_cost = math.ceil(fmt.max_regex_size * 0.25)
    return str_cost * regex_cost


@function("format.named(string) -> optional_type(kubernetes.NamedFormat)", cost=1)
def format_named(name: str) -> Optional:
    found = CONSTANT_FORMATS.get(name)
    return OPTIONAL_NONE if found is None else Optional(found)


@function("kubernetes.NamedFormat.validate(string) -> optional_type(list(string))", cost=_validate_cost)
def format_validate(fmt: Format, s: str) -> Optional:
    errors = fmt.validate(s)
    return Optional(list(errors)) if errors else OPTIONAL_NONE


def _constant(fmt: Format) -> Callable[[], Format]:
    return lambda: fmt


for _key, _fmt in CONSTANT_FORMATS.items():
    function(f"format.{_key}() -> kubernetes.NamedFormat")(_constant(_fmt))
