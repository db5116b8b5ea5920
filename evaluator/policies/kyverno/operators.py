"""Condition operators of preconditions and deny (pkg/engine/variables/operator).

Numbers are float64 there (everything went through JSON), so Python ints are handled as floats.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from . import pattern_value, semver, wildcard
from .gofmt import sprint
from .pattern_value import parse_go_float, parse_go_int
from .units import parse_duration, parse_quantity

SECOND = 1_000_000_000


def _num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _duration_pair(key: object, value: object) -> tuple[int, int] | None:
    """operator.parseDuration: at least one side a duration string, the other a duration or seconds."""
    kd = parse_duration(key) if isinstance(key, str) and key != "0" else None
    vd = parse_duration(value) if isinstance(value, str) and value != "0" else None
    if kd is None and vd is None:
        return None
    if kd is None:
        if not _num(key):
            return None
        kd = int(float(key)) * SECOND
    if vd is None:
        if not _num(value):
            return None
        vd = int(float(value)) * SECOND
    return kd, vd


def equal(key: object, value: object) -> bool:
    if isinstance(key, bool):
        return isinstance(value, bool) and key == value
    if _num(key):
        k = float(key)
        if isinstance(value, bool):
            return False
        if _num(value):
            return float(value) == k
        if isinstance(value, str):
            f = parse_go_float(value)
            return f is not None and f == k
        return False
    if isinstance(key, str):
        pair = _duration_pair(key, value)
        if pair is not None:
            return pair[0] == pair[1]
        kq = parse_quantity(key)
        if kq is not None and isinstance(value, str):
            vq = parse_quantity(value)
            return vq is not None and kq == vq
        if isinstance(value, str):
            return wildcard.match(value, key)
        return False
    if isinstance(key, (dict, list)):
        return type(value) is type(key) and _deep_equal(key, value)
    return False


def _deep_equal(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    if _num(a) and _num(b):
        return float(a) == float(b)
    return type(a) is type(b) and a == b


def _cmp(k: float, v: float, op: str) -> bool:
    return {"greaterthanorequals": k >= v, "greaterthan": k > v, "lessthanorequals": k <= v, "lessthan": k < v}[op]


def _numeric_number_key(k: float, value: object, op: str) -> bool:
    if _num(value):
        return _cmp(k, float(value), op)
    if isinstance(value, str):
        pair = _duration_pair(k, value)
        if pair is not None:
            return _cmp(pair[0], pair[1], op)
        f = parse_go_float(value)
        if f is not None:
            return _cmp(k, f, op)
        i = parse_go_int(value)
        if i is not None:
            return _cmp(k, float(i), op)
    return False


def numeric(key: object, value: object, op: str) -> bool:
    if isinstance(key, bool):
        return False
    if _num(key):
        return _numeric_number_key(float(key), value, op)
    if isinstance(key, str):
        pair = _duration_pair(key, value)
        if pair is not None:
            return _cmp(pair[0], pair[1], op)
        kq = parse_quantity(key)
        vq = parse_quantity(value) if isinstance(value, str) else None
        if kq is not None and vq is not None:
            return _cmp((kq > vq) - (kq < vq), 0, op)
        f = parse_go_float(key)
        if f is not None:
            return _numeric_number_key(f, value, op)
        i = parse_go_int(key)
        if i is not None:
            return _numeric_number_key(float(i), value, op)
        kv = semver.parse(key)
        if kv is not None:
            vv = semver.parse(value) if isinstance(value, str) else None
            if vv is None:
                return False
            return _cmp(semver.compare(kv, vv), 0, op)
    return False


def duration(key: object, value: object, op: str) -> bool:
    op = op.replace("duration", "")

    def side(v: object, allow_string: bool) -> int | None:
        if _num(v):
            return int(float(v)) * SECOND
        if isinstance(v, str) and allow_string:
            return parse_duration(v)
        return None

    if isinstance(key, bool) or not (_num(key) or isinstance(key, str)):
        return False
    k = side(key, True)
    if k is None:
        return False
    if isinstance(value, bool):
        return False
    v = side(value, True)
    if v is None:
        return False
    return _cmp(k, v, op)


# --- set operators ---


def _json_string_list(text: str) -> list[str] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, list) and all(isinstance(x, str) for x in data):
        return data
    return None


def _match_either(a: str, b: str) -> bool:
    return wildcard.match(a, b) or wildcard.match(b, a)


def _in_range(key: str, value: str) -> bool:
    return pattern_value.validate(key, value)


def _key_in_value(key: str, value: object, ranges: bool) -> bool | None:
    """keyExistsInArray / anyKeyExistsInArray; None means invalid type."""
    if isinstance(value, list):
        return any(_match_either(sprint(v), key) for v in value)
    if isinstance(value, str):
        if wildcard.match(value, key):
            return True
        if ranges and pattern_value.operator_of(value) == pattern_value.IN_RANGE:
            return _in_range(key, value)
        if ranges and not _json_valid(value):
            arr = [value]
        else:
            arr = _json_string_list(value)
            if arr is None:
                return None
        return key in arr
    return None


def _json_valid(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def _value_strings(value: object, name: str, key: list[str]) -> list[str] | None:
    if isinstance(value, list):
        return [sprint(v) for v in value]
    if _num(value) or isinstance(value, bool):
        return [sprint(value)] if name in ("anyin", "anynotin") else None
    if isinstance(value, str):
        if _json_valid(value):
            arr = _json_string_list(value)
            return arr
        return [value]
    return None


_NEGATED = ("notin", "anynotin", "allnotin")

# AnyIn / AnyNotIn / AllIn / AllNotIn: (quantifier over the keys, whether a key counts when it is NOT a member)
_ANY_ALL = {
    "anyin": (any, False),
    "anynotin": (any, True),
    "allin": (all, False),
    "allnotin": (all, True),
}


def _scalar_key(name: str, key: str | int | float | bool, value: object) -> bool:
    k = key if isinstance(key, str) else sprint(key)
    exists = _key_in_value(k, value, ranges=name not in ("in", "notin"))
    if exists is None:
        return False
    return not exists if name in _NEGATED else exists


def _keys_in(name: str, keys: list[str], value: object) -> bool:
    """In / NotIn with a list key: every key must be among the values (exact strings)."""
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            return False
        values = value
    elif isinstance(value, str):
        if len(keys) == 1 and keys[0] == value:
            return name == "in"
        values = _json_string_list(value)
        if values is None:
            return False
    else:
        return False
    all_in = all(k in set(values) for k in keys)
    return all_in if name == "in" else not all_in


def _keys_in_range(name: str, keys: list[str], value: str) -> bool:
    if name == "anynotin":
        # Kyverno negates the range itself ("1-3" -> "1!-3"), not each key's answer
        return any(_in_range(k, value.replace("-", "!-", 1)) for k in keys)
    quantifier, negate = _ANY_ALL[name]
    return quantifier(_in_range(k, value) != negate for k in keys)


def _keys_any_all(name: str, keys: list[str], value: object) -> bool:
    """AnyIn / AnyNotIn / AllIn / AllNotIn with a list key: ranges and wildcards either way."""
    if isinstance(value, str):
        if len(keys) == 1 and keys[0] == value:
            return name in ("anyin", "allin")
        if pattern_value.operator_of(value) == pattern_value.IN_RANGE:
            return _keys_in_range(name, keys, value)
    values = _value_strings(value, name, keys)
    if values is None:
        return False
    quantifier, negate = _ANY_ALL[name]
    return quantifier(any(_match_either(k, v) for v in values) != negate for k in keys)


def set_operator(name: str, key: object, value: object) -> bool:
    """In, NotIn, AnyIn, AllIn, AnyNotIn, AllNotIn."""
    if isinstance(key, (str, int, float, bool)):
        return _scalar_key(name, key, value)
    if not isinstance(key, list):
        return False
    keys = [v if isinstance(v, str) else sprint(v) for v in key]
    if name in ("in", "notin"):
        return _keys_in(name, keys, value)
    return _keys_any_all(name, keys, value)


def _not_equal(key: object, value: object) -> bool:
    return not equal(key, value)


def _named(check: Callable[[object, object, str], bool], name: str) -> Callable[[object, object], bool]:
    return lambda key, value: check(key, value, name)


def _set(name: str) -> Callable[[object, object], bool]:
    return lambda key, value: set_operator(name, key, value)


# every condition operator (lower-cased) -> (key, value) -> whether the condition holds
_CHECKS: dict[str, Callable[[object, object], bool]] = {
    "equal": equal,
    "equals": equal,
    "notequal": _not_equal,
    "notequals": _not_equal,
    **{name: _set(name) for name in ("in", "anyin", "allin", "notin", "anynotin", "allnotin")},
    **{name: _named(numeric, name) for name in ("greaterthanorequals", "greaterthan", "lessthanorequals", "lessthan")},
    **{
        name: _named(duration, name)
        for name in (
            "durationgreaterthanorequals",
            "durationgreaterthan",
            "durationlessthanorequals",
            "durationlessthan",
        )
    },
}


def evaluate(operator: str, key: object, value: object) -> bool:
    """Raises KeyError for an unknown operator."""
    check = _CHECKS.get((operator or "").lower())
    if check is None:
        raise KeyError(operator)
    return check(key, value)
