"""Kubernetes' format library: `format.named(name)`, `format.<name>()` and `<Format>.validate(s)`.

The validators reproduce apimachinery's messages word for word (`k8s.io/apimachinery/pkg/util/validation`,
`pkg/api/validate/content`) and kube-openapi's strfmt checks for uuid, byte, date and datetime. Lengths are
Go byte lengths, and patterns run on RE2 (Go's regexp semantics: `$` is the end of the text).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import re2

from evaluator.cel.library.urls import URLError, parse_request_uri
from evaluator.cel.registry import function
from evaluator.cel.values import OPTIONAL_NONE, Optional

__all__ = ["Format", "CONSTANT_FORMATS"]

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"

_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                      "must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                          "or '.', and must start and end with an alphanumeric character")
_DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character")
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")


def _anchored(fmt: str):
    return re2.compile("^" + fmt + "$")


_DNS1123_LABEL_RE = _anchored(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = _anchored(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = _anchored(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE = _anchored(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = _anchored(_LABEL_VALUE_FMT)
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


def _max_len_chars(n: int) -> str:  # util/validation.MaxLenError
    return f"must be no more than {n} characters"


def _max_len_bytes(n: int) -> str:  # content.MaxLenError
    return f"must be no more than {n} bytes"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if _blen(value) > 63:
        errs.append(_max_len_chars(63))
    if not _matches(_DNS1123_LABEL_RE, value):
        if _matches(_DNS1123_SUBDOMAIN_RE, value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def _is_dns1123_subdomain(value: str, max_len: Callable[[int], str]) -> list[str]:
    errs = []
    if _blen(value) > 253:
        errs.append(max_len(253))
    if not _matches(_DNS1123_SUBDOMAIN_RE, value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    return _is_dns1123_subdomain(value, _max_len_chars)


def is_dns1035_label(value: str) -> list[str]:
    errs = []
    if _blen(value) > 63:
        errs.append(_max_len_chars(63))
    if not _matches(_DNS1035_LABEL_RE, value):
        errs.append(_regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """content.IsLabelKey (IsQualifiedName): an optional DNS subdomain prefix, '/', and a name part."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in _is_dns1123_subdomain(prefix, _max_len_bytes)]
    else:
        return ["a valid label key " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part " + _max_len_bytes(63))
    if not _matches(_LABEL_KEY_RE, name):
        errs.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    errs = []
    if _blen(value) > 63:
        errs.append(_max_len_bytes(63))
    if not _matches(_LABEL_VALUE_RE, value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


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
    "uuid": Format("uuid", _check(lambda s: _matches(_UUID_RE, s), "does not match the UUID format"),
                   len(_UUID_RE.pattern)),
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
