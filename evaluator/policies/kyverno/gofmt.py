"""Go's textual forms of values, which Kyverno's messages and comparisons depend on.

Numbers decoded from JSON are float64 in Go, so `fmt.Sprint` and `json.Marshal` forms are reproduced here.
"""

from __future__ import annotations

import json
import math


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _shortest(value: float) -> tuple[str, int]:
    """Shortest round-trip digits and decimal exponent of the leading digit."""
    mant, _, exp = f"{abs(value):.17e}".partition("e")
    for prec in range(0, 18):
        candidate = f"{abs(value):.{prec}e}"
        if float(candidate) == abs(value):
            mant, _, exp = candidate.partition("e")
            break
    return mant.replace(".", ""), int(exp)


def _exp_form(value: float, pad: bool) -> str:
    digits, e10 = _shortest(value)
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if e10 < 0 else "+"
    num = f"{abs(e10):02d}" if pad else str(abs(e10))
    return ("-" if value < 0 else "") + f"{mant}e{sign}{num}"


def _fixed_form(value: float) -> str:
    digits, e10 = _shortest(value)
    if e10 >= 0:
        if len(digits) <= e10 + 1:
            out = digits + "0" * (e10 + 1 - len(digits))
        else:
            out = digits[: e10 + 1] + "." + digits[e10 + 1 :]
    else:
        out = "0." + "0" * (-e10 - 1) + digits
    return ("-" if value < 0 else "") + out


def non_finite(value: float) -> str | None:
    """How fmt prints an infinity or NaN (any verb); None for a finite number."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return None


def format_g(value: float) -> str:
    """fmt.Sprint(float64) (%v = %g shortest): exponent form when exp < -4 or exp >= 6 (1e+06)."""
    special = non_finite(value)
    if special is not None:
        return special
    if value == 0:
        return "0"
    _, e10 = _shortest(value)
    if e10 < -4 or e10 >= 6:
        return _exp_form(value, pad=True)
    return _fixed_form(value)


def sprint(value: object) -> str:
    """fmt.Sprint of a JSON-decoded value (numbers are float64)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return format_g(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + " ".join(sprint(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{sprint(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def sprint_int_aware(value: object) -> str:
    """fmt.Sprint for a value from an unstructured object, where whole numbers are int64."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return "[" + " ".join(sprint_int_aware(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{sprint_int_aware(value[k])}" for k in sorted(value)) + "]"
    return sprint(value)


def json_number(value: float | int) -> str:
    """encoding/json form of a float64: fixed unless |v| < 1e-6 or >= 1e21, exponent unpadded."""
    f = float(value)
    if f == 0:
        return "0"
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        return _exp_form(f, pad=False)
    return _fixed_form(f)


def to_json(value: object) -> str:
    """encoding/json.Marshal of JSON-like data: compact, sorted map keys, float64 numbers, no HTML escaping
    (Kyverno uses jsoniter's standard-compatible config, which does escape <, >, &)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return json_number(value)
    if isinstance(value, str):
        s = json.dumps(value, ensure_ascii=False)
        return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if isinstance(value, list):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(to_json(str(k)) + ":" + to_json(value[k]) for k in sorted(value)) + "}"
    return json.dumps(str(value))
