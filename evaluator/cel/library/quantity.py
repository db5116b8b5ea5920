"""Kubernetes' quantity library, on a port of apimachinery's `resource.Quantity`.

A Quantity is an exact decimal `unscaled * 10**scale` in one of apimachinery's two representations: the
fast int64 one (`int64Amount`) or the arbitrary-precision one (`inf.Dec`). The representation is visible
in CEL: `isInteger()`/`asInteger()` only succeed on the int64 form, and `asApproximateFloat()` multiplies
the unscaled value by Go's `math.Pow10`, so both forms and the switches between them are kept as Go has them.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.support import declare_ordering, declare_parser
from evaluator.cel.registry import function

__all__ = ["Quantity", "parse_quantity", "QuantityError"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_NANO = -9
_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT = f"quantities must match the regular expression '{_SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

DECIMAL_EXPONENT, BINARY_SI, DECIMAL_SI = "DecimalExponent", "BinarySI", "DecimalSI"
_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_BY_EXP = {v: k for k, v in _DEC_SUFFIXES.items()}
_BIN_BY_EXP = {v: k for k, v in _BIN_SUFFIXES.items()}


class QuantityError(ValueError):
    pass


def _fits(v: int) -> bool:
    return INT64_MIN <= v <= INT64_MAX


class Quantity:
    """`resource.Quantity`: value = unscaled * 10**scale; `is_dec` tells the inf.Dec form from int64Amount."""

    cel_type_name = "kubernetes.Quantity"
    __slots__ = ("unscaled", "scale", "is_dec", "format")

    def __init__(self, unscaled: int, scale: int, is_dec: bool, format: str):
        self.unscaled, self.scale, self.is_dec, self.format = unscaled, scale, is_dec, format

    def exact(self) -> Fraction:
        """The exact value; only for values of bounded scale (formatting)."""
        return Fraction(self.unscaled) * Fraction(10) ** self.scale

    def copy(self) -> "Quantity":
        return Quantity(self.unscaled, self.scale, self.is_dec, self.format)

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def cmp(self, other: "Quantity") -> int:
        """`Quantity.Cmp`, exact.

        Go's Cmp also converts its receiver to inf.Dec when the other side is one (so a later `isInteger()`
        on the same value says false). Values here are shared by compiled programs and folded constants, so
        they stay immutable: that in-place side effect is deliberately not reproduced.
        """
        return compare_decimal(self.unscaled, self.scale, other.unscaled, other.scale)

    def as_int64(self) -> int | None:
        """`Quantity.AsInt64`: None unless int64Amount with a non-negative scale that fits."""
        if self.is_dec or self.scale < 0:
            return None
        if self.unscaled == 0:
            return 0
        if self.scale > 18:
            return None
        v = self.unscaled * 10**self.scale
        return v if _fits(v) else None

    def as_approximate_float(self) -> float:
        try:
            base = float(self.unscaled)
        except OverflowError:  # big.Float.Float64 saturates to an infinity
            base = math.copysign(math.inf, self.unscaled)
        exponent = self.scale
        if exponent == 0:
            return base
        return base * _go_pow10(exponent)

    def add(self, y: "Quantity") -> "Quantity":
        """`Quantity.Add` on a copy of self."""
        q = self.copy()
        if not q.is_dec and not y.is_dec:
            if q.unscaled == 0:
                q.format = y.format
            if _int64_add(q, y.unscaled, y.scale):
                return q
        elif q.unscaled == 0:
            q.format = y.format
        return _dec_sum(q, y.unscaled, y.scale)

    def sub(self, y: "Quantity") -> "Quantity":
        """`Quantity.Sub` on a copy of self."""
        q = self.copy()
        if q.unscaled == 0:
            q.format = y.format
        # Go negates the int64 operand in place, so -MinInt64 wraps back to MinInt64.
        negated = y.unscaled if y.unscaled == INT64_MIN else -y.unscaled
        if not q.is_dec and not y.is_dec and _int64_add(q, negated, y.scale):
            return q
        return _dec_sum(q, -y.unscaled, y.scale)

    def __eq__(self, other) -> bool:
        return type(other) is Quantity and compare_decimal(self.unscaled, self.scale, other.unscaled, other.scale) == 0

    def __hash__(self) -> int:
        return hash(("quantity",) + _normalized(self.unscaled, self.scale))

    def __repr__(self) -> str:
        return f"quantity({str(self)!r})"

    def __str__(self) -> str:
        return canonical_string(self)


def _int64_add(q: Quantity, value: int, scale: int) -> bool:
    """`int64Amount.Add` in place; False when the result does not fit int64 (q is then unchanged)."""
    if value == 0:
        return True
    if q.unscaled == 0:
        q.unscaled, q.scale = value, scale
        return True
    if q.scale == scale:
        total = q.unscaled + value
    elif q.scale > scale:
        if q.scale - scale > 19:  # |q.unscaled| >= 1, so the shifted value cannot fit int64
            return False
        shifted = q.unscaled * 10 ** (q.scale - scale)
        if not _fits(shifted):
            return False
        total, new_scale = shifted + value, scale
        if not _fits(total):
            return False
        q.unscaled, q.scale = total, new_scale
        return True
    else:
        if scale - q.scale > 19:
            return False
        shifted = value * 10 ** (scale - q.scale)
        if not _fits(shifted):
            return False
        total = q.unscaled + shifted
    if not _fits(total):
        return False
    q.unscaled = total
    return True


def _dec_sum(q: Quantity, value: int, scale: int) -> Quantity:
    """inf.Dec addition: exact, at the finer of the two scales."""
    s = min(q.scale, scale)
    q.unscaled = _shift(q.unscaled, q.scale - s) + _shift(value, scale - s)
    q.scale, q.is_dec = s, True
    return q


_POW10_TAB = [float(f"1e{i}") for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


def _go_pow10(n: int) -> float:
    """Go's `math.Pow10`, table for table, so products round as they do in Go."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10_TAB[n % 32]
    if -323 <= n < 0:
        return _POW10_NEG32[-n // 32] / _POW10_TAB[-n % 32]
    return math.inf if n > 0 else 0.0


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """apimachinery's `parseQuantityString`: (positive, value, num, denom, suffix)."""
    positive, pos, end = text[:1] != "-", 1 if text[:1] in ("-", "+") else 0, len(text)
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    i = _digits_end(text, pos)
    if i >= end:
        return positive, text, text[pos:], "", ""
    num, pos = text[pos:i] or "0", i
    denom = ""
    if text[pos] == ".":
        pos += 1
        i = _digits_end(text, pos)
        if i >= end:
            return positive, text, num, text[pos:], ""
        denom, pos = text[pos:i], i
    if not _suffix_to_end(text, pos):
        raise QuantityError(ERR_FORMAT)
    return positive, text[:pos], num, denom, text[pos:]


def _digits_end(text: str, pos: int) -> int:
    while pos < len(text) and "0" <= text[pos] <= "9":
        pos += 1
    return pos


def _suffix_to_end(text: str, pos: int) -> bool:
    """Whether the text from `pos` has the suffix's shape, [eEinumkKMGTP]*[-+]?[0-9]*, and nothing after."""
    while pos < len(text) and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < len(text) and text[pos] in "+-":
        pos += 1
    return _digits_end(text, pos) >= len(text)


def _interpret(suffix: str) -> tuple[int, int, str]:
    if suffix in _DEC_SUFFIXES:
        return 10, _DEC_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BIN_SUFFIXES:
        return 2, _BIN_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in "+-" else digits
        if body and body.isascii() and body.isdigit():
            parsed = int(digits)
            if _fits(parsed):
                return 10, (parsed + 2**31) % 2**32 - 2**31, DECIMAL_EXPONENT  # Go's int32() conversion
    raise QuantityError(ERR_SUFFIX)


def _parse_decimal(value: str) -> tuple[int, int]:
    """inf.Dec.SetString: optional sign, digits with at most one '.', at least one digit."""
    sign = -1 if value[:1] == "-" else 1
    body = value[1:] if value[:1] in "+-" else value
    whole, _, frac = body.partition(".")
    digits = whole + frac
    if not digits or not digits.isascii() or not digits.isdigit():
        raise QuantityError(ERR_NUMERIC)
    return sign * int(digits), -len(frac)


def parse_quantity(text: str) -> Quantity:
    """`resource.ParseQuantity`; raises QuantityError with apimachinery's message."""
    if not text:
        raise QuantityError(ERR_FORMAT)
    if text == "0":
        return Quantity(0, 0, False, DECIMAL_SI)
    positive, value, num, denom, suf = _split(text)
    base, exponent, fmt = _interpret(suf)

    precision, scale, mantissa = 0, 0, 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            result = int(num + denom) * mantissa
            if _fits(result):
                return Quantity(result if positive else -result, scale, False, fmt)

    unscaled, dec_scale = _parse_decimal(value)
    if base == 10:
        dec_scale += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled != 0 and dec_scale != _NANO:
        unscaled, dec_scale = _round_up(unscaled, dec_scale, _NANO), _NANO
    if fmt == BINARY_SI and compare_decimal(unscaled, dec_scale, INT64_MAX, 0) > 0:
        unscaled, dec_scale = INT64_MAX, 0
    if fmt == BINARY_SI and unscaled != 0 and compare_decimal(unscaled, dec_scale, 1, 0) < 0:
        fmt = DECIMAL_SI
    return Quantity(-unscaled if negative else unscaled, dec_scale, True, fmt)


def _round_up(unscaled: int, scale: int, to_scale: int) -> int:
    """inf.Dec.Round(.., RoundUp) of a positive value to `to_scale` (away from zero)."""
    if scale >= to_scale:
        return _shift(unscaled, scale - to_scale)
    drop = to_scale - scale
    if drop > len(str(unscaled)):
        return 1  # all digits are dropped, the remainder is not zero
    q, r = divmod(unscaled, 10**drop)
    return q + (1 if r else 0)


# Go computes these exactly however long it takes; a cap on the digits keeps a crafted quantity such as
# "1e2000000000" from stalling the evaluator (Go would allocate gigabytes for it).
MAX_DIGITS = 100_000


def _shift(unscaled: int, digits: int) -> int:
    if unscaled == 0 or digits == 0:
        return unscaled
    if digits > MAX_DIGITS:
        raise QuantityError("quantity exponent out of the supported range")
    return unscaled * 10**digits


def _normalized(unscaled: int, scale: int) -> tuple[int, int]:
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled //= 10
        scale += 1
    return unscaled, scale


def compare_decimal(a: int, a_scale: int, b: int, b_scale: int) -> int:
    """Exact comparison of a*10**a_scale and b*10**b_scale without materialising huge powers."""
    sa, sb = (a > 0) - (a < 0), (b > 0) - (b < 0)
    if sa != sb or sa == 0:
        return (sa > sb) - (sa < sb)
    a, a_scale = _normalized(abs(a), a_scale)
    b, b_scale = _normalized(abs(b), b_scale)
    mag_a, mag_b = len(str(a)) + a_scale, len(str(b)) + b_scale
    if mag_a != mag_b:
        result = 1 if mag_a > mag_b else -1
    else:
        s = min(a_scale, b_scale)
        x, y = a * 10 ** (a_scale - s), b * 10 ** (b_scale - s)
        result = (x > y) - (x < y)
    return result * sa


def canonical_string(q: Quantity) -> str:
    """`Quantity.String`'s canonical form (apimachinery's CanonicalizeBytes)."""
    if q.unscaled == 0:
        return "0"
    fmt = q.format
    if fmt == BINARY_SI and q.scale > MAX_DIGITS:
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        if compare_decimal(abs(q.unscaled), q.scale, 1024, 0) < 0:
            fmt = DECIMAL_SI
        elif q.exact().denominator != 1:  # BinarySI values are at most int64 with scale >= -9
            fmt = DECIMAL_SI
    elif fmt not in (DECIMAL_SI, DECIMAL_EXPONENT):
        fmt = DECIMAL_EXPONENT
    if fmt == BINARY_SI:
        amount, exponent = int(q.exact()), 0
        while amount % 1024 == 0 and amount != 0 and exponent < 6 * 10:
            amount //= 1024
            exponent += 10
        return f"{amount}{_BIN_BY_EXP.get(exponent, '')}"
    amount, exponent = q.unscaled, q.scale
    while amount % 10 == 0:
        amount //= 10
        exponent += 1
    while exponent % 3:
        amount *= 10
        exponent -= 1
    if fmt == DECIMAL_SI:
        suffix = _DEC_BY_EXP.get(exponent, "")
    else:
        suffix = f"e{exponent}" if exponent else ""
    return f"{amount}{suffix}"


def _quantity_or_error(s: str) -> Quantity:
    try:
        return parse_quantity(s)
    except QuantityError as err:
        raise CELEvalError(str(err)) from None


# --- CEL functions -------------------------------------------------------------------------------


declare_parser("quantity", "isQuantity", "kubernetes.Quantity", _quantity_or_error)


@function("sign(kubernetes.Quantity) -> int", cost=1)
def quantity_sign(q: Quantity) -> int:
    return q.sign()


declare_ordering("kubernetes.Quantity", Quantity.cmp)


@function("kubernetes.Quantity.asApproximateFloat() -> double", cost=1)
def quantity_as_approximate_float(q: Quantity) -> float:
    return q.as_approximate_float()


@function("kubernetes.Quantity.asInteger() -> int", cost=1)
def quantity_as_integer(q: Quantity) -> int:
    v = q.as_int64()
    if v is None:
        raise CELEvalError("cannot convert value to integer")
    return v


@function("kubernetes.Quantity.isInteger() -> bool", cost=1)
def quantity_is_integer(q: Quantity) -> bool:
    return q.as_int64() is not None


def _declare_arithmetic(name: str, op: Callable[[Quantity, Quantity], Quantity]) -> None:
    """`add` and `sub` take a Quantity or an int, which Kubernetes reads as `resource.NewQuantity(n, DecimalExponent)`."""

    def impl(q: Quantity, other: Quantity | int) -> Quantity:
        if type(other) is not Quantity:
            other = Quantity(other, 0, False, DECIMAL_EXPONENT)
        try:
            return op(q, other)
        except QuantityError as err:
            raise CELEvalError(str(err)) from None

    for operand in ("kubernetes.Quantity", "int"):
        function(f"kubernetes.Quantity.{name}({operand}) -> kubernetes.Quantity", cost=1)(impl)


_declare_arithmetic("add", Quantity.add)
_declare_arithmetic("sub", Quantity.sub)
