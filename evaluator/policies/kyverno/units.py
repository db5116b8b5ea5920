"""Go `time.ParseDuration` and Kubernetes `resource.ParseQuantity`, as exact numbers, for comparisons."""

from __future__ import annotations

from evaluator.cel.memo import remembered_when_short
import re
from fractions import Fraction

_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([a-zµμ]+)")


def parse_duration(text: str) -> int | None:
    """Nanoseconds of a Go duration string, or None when Go would reject it."""
    if not isinstance(text, str) or text == "":
        return None
    return _duration(str(text))


# Every string a pattern compares is tried as a duration, then as a quantity: the short ones (all real
# durations and quantities) are remembered.
_REMEMBERED_CHARS = 64


@remembered_when_short(_REMEMBERED_CHARS)
def _duration(s: str) -> int | None:
    sign = 1
    if s[0] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if s == "":
        return None
    total = Fraction(0)
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if not m or m.end() == pos:
            return None
        number, unit = m.group(1), m.group(2)
        if number in ("", ".") or unit not in _DURATION_UNITS:
            return None
        total += Fraction(number) * _DURATION_UNITS[unit]
        pos = m.end()
    ns = int(total)
    if ns > 2**63 - 1:
        return None
    return sign * ns


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")
_EXPONENT = re.compile(r"^[eE]([+-]?[0-9]+)$")


def parse_quantity(text: str) -> Fraction | None:
    """Exact value of a Kubernetes quantity string, or None when it does not parse."""
    if not isinstance(text, str) or text == "":
        return None
    return _quantity(str(text))


@remembered_when_short(_REMEMBERED_CHARS)
def _quantity(text: str) -> Fraction | None:
    m = _QUANTITY.match(text)
    if not m:
        return None
    sign, whole, frac, suffix = m.groups()
    if whole == "" and not frac:
        return None
    number = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    if suffix in _BINARY:
        factor = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        factor = _DECIMAL[suffix]
    else:
        e = _EXPONENT.match(suffix)
        if not e:
            return None
        factor = Fraction(10) ** int(e.group(1))
    value = number * factor
    return -value if sign == "-" else value
