"""CEL equality, ordering and arithmetic with Kubernetes' options.

Kubernetes enables heterogeneous equality and cross-type numeric comparisons (`1 == 1.0`, `1u < 2.5`),
but arithmetic never mixes int, uint and double. Python's `bool` is an `int`, so every check here is on
the exact type.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.cel.values import (
    DUR_MAX_NANOS,
    INT64_MAX,
    INT64_MIN,
    LIST_TYPES,
    UINT64_MAX,
    Duration,
    MapList,
    MixedKeyMap,
    SetList,
    Timestamp,
    UInt,
)

_NUMERIC = (int, UInt, float)
_MAP_TYPES = (dict, MixedKeyMap)
_PLAIN = frozenset((str, int, bool, float))  # compared by Python's == when both sides have the type


def _is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is float or t is UInt


def _num_order(a: Any, b: Any) -> int | None:
    """cel-go's cross-type numeric comparison: an int or uint meets a double as a (lossy) double."""
    ta, tb = type(a), type(b)
    if ta is float or tb is float:
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y):
            return None
        return -1 if x < y else (1 if x > y else 0)
    return -1 if a < b else (1 if a > b else 0)


def equals(a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    if ta is not tb and _is_num(a) and _is_num(b):
        return _num_order(a, b) == 0
    if ta is tb and ta in _PLAIN:
        return a == b  # the common case first
    if ta in LIST_TYPES and tb in LIST_TYPES:
        special = _SPECIAL_LIST_EQUALS.get(ta)
        if special is not None:
            return special(a, b)
        return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b))
    if ta is tb:
        return _map_equals(a, b) if ta in _MAP_TYPES else a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return _map_equals(a, b)
    if hasattr(ta, "cel_type_name") or hasattr(tb, "cel_type_name"):
        # cel-go: a library value (quantity, ip, ...) compared with another type is "no such overload".
        raise CELEvalError("no such overload")
    return False


def _set_list_equals(a: SetList, b: Any) -> bool:
    """Kubernetes' unstructuredSetList.Equal: same size, and every element of `b` is one of `a`'s."""
    if len(a) != len(b):
        return False
    members = set(a)
    return all(_hashable(x) and x in members for x in b)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def map_list_key(item: Any, key_props: tuple[str, ...]) -> Any:
    """The identity of a map-list item: the values of its key properties (absent keys are None)."""
    if not isinstance(item, Mapping):
        raise CELEvalError(f"unexpected data format for element of array with x-kubernetes-list-type=map: {item!r}")
    key = tuple(item.get(k) for k in key_props)
    return key if _hashable(key) else repr(key)


def _map_list_equals(a: MapList, b: Any) -> bool:
    """Kubernetes' unstructuredMapList.Equal: same size, and each item of `b` equals `a`'s item of its key."""
    if len(a) != len(b):
        return False
    by_key = {map_list_key(x, a.key_props): x for x in a}
    for item in b:
        key = map_list_key(item, a.key_props)
        if key not in by_key or not equals(by_key[key], item):
            return False
    return True


# The list kinds whose equality Kubernetes defines by its own rules (x-kubernetes-list-type set and map).
_SPECIAL_LIST_EQUALS = {SetList: _set_list_equals, MapList: _map_list_equals}


def _map_equals(a: Mapping, b: Mapping) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        found, other = map_lookup(b, k)
        if not found or not equals(v, other):
            return False
    return True


def map_lookup(m: Mapping, key: Any) -> tuple[bool, Any]:
    """Find `key` in a CEL map, with numeric keys matching across int, uint and double."""
    tk = type(key)
    if tk is str or tk is bytes or key is None:
        try:
            return True, m[key]
        except (KeyError, TypeError):
            return False, None
    if tk is int or tk is UInt:
        return _number_lookup(m, key, tk)
    if tk is float:
        return _number_lookup(m, int(key), int) if key.is_integer() else (False, None)
    if tk is bool:
        for k, v in m.items():
            if type(k) is bool and k == key:
                return True, v
    return False, None


def _number_lookup(m: Mapping, key: int, tk: type) -> tuple[bool, Any]:
    """The key's own type first, then the other of int and uint (cel-go's refValMap Find)."""
    other = None
    for k, v in m.items():
        tkk = type(k)
        if (tkk is int or tkk is UInt) and k == key:
            if tkk is tk:
                return True, v
            if other is None:
                other = (v,)
    return (True, other[0]) if other is not None else (False, None)


def check_map_key(key: Any) -> None:
    t = type(key)
    if not (t is str or t is int or t is UInt or t is bool):
        raise CELEvalError(f"unsupported key type: {_tn(key)}")


def _tn(v: Any) -> str:
    from evaluator.cel.values import type_name

    return type_name(v)


def order(a: Any, b: Any) -> int | None:
    """-1, 0 or 1; None when unordered (NaN). Raises 'no such overload' for incomparable types."""
    ta, tb = type(a), type(b)
    if _is_num(a) and _is_num(b):
        return _num_order(a, b)
    if ta is tb and ta in (str, bytes, bool, Timestamp, Duration):
        if ta is Timestamp or ta is Duration:
            a, b = a.nanos, b.nanos
        return -1 if a < b else (1 if a > b else 0)
    compare_to = getattr(a, "cel_compare", None)
    if compare_to is not None and ta is tb:
        return compare_to(b)
    raise CELEvalError("no such overload")


def lt(a: Any, b: Any) -> bool:
    r = order(a, b)
    return r is not None and r < 0


def le(a: Any, b: Any) -> bool:
    r = order(a, b)
    return r is not None and r <= 0


def gt(a: Any, b: Any) -> bool:
    r = order(a, b)
    return r is not None and r > 0


def ge(a: Any, b: Any) -> bool:
    r = order(a, b)
    return r is not None and r >= 0


def contains(container: Any, item: Any) -> bool:
    """The `in` operator."""
    t = type(container)
    if t in LIST_TYPES:
        return any(equals(item, x) for x in container)
    if t is dict or isinstance(container, Mapping):
        return map_lookup(container, item)[0]
    raise CELEvalError("no such overload")


def check_int(v: int) -> int:
    if v < INT64_MIN or v > INT64_MAX:
        raise CELEvalError("integer overflow")
    return v


def check_uint(v: int) -> UInt:
    if v < 0 or v > UINT64_MAX:
        raise CELEvalError("unsigned integer overflow")
    return UInt(v)


def check_duration(nanos: int) -> Duration:
    if nanos < -DUR_MAX_NANOS or nanos > DUR_MAX_NANOS:
        raise CELEvalError("integer overflow")
    return Duration(nanos)


def check_timestamp(nanos: int, offset: int = 0) -> Timestamp:
    ts = Timestamp(nanos, offset)
    if not ts.in_range():
        raise CELEvalError("timestamp out of range")
    return ts


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            return check_int(a + b)
        if ta is float or ta is str or ta is bytes:
            return a + b
        if ta is UInt:
            return check_uint(int(a) + int(b))
        if ta is Duration:
            return check_duration(a.nanos + b.nanos)
    if ta in LIST_TYPES and tb in LIST_TYPES:
        if ta is SetList:
            return _set_list_union(a, b)
        if ta is MapList:
            return _map_list_merge(a, b)
        return list(a) + list(b)
    if ta is Timestamp and tb is Duration:
        return check_timestamp(a.nanos + b.nanos, a.offset)
    if ta is Duration and tb is Timestamp:
        return check_timestamp(a.nanos + b.nanos, b.offset)
    raise CELEvalError("no such overload")


def _set_list_union(a: SetList, b: Any) -> SetList:
    """Kubernetes' unstructuredSetList.Add: `a`'s elements in order, then `b`'s that `a` lacks."""
    result = SetList(a)
    seen = set(a)
    for x in b:
        if x not in seen:
            seen.add(x)
            result.append(x)
    return result


def _map_list_merge(a: MapList, b: Any) -> MapList:
    """Kubernetes' unstructuredMapList.Add: `b`'s item replaces `a`'s of the same key in place; items of new
    keys are appended in `b`'s order."""
    result = MapList(a, a.key_props)
    position = {map_list_key(x, a.key_props): i for i, x in enumerate(a)}
    for item in b:
        key = map_list_key(item, a.key_props)
        if key in position:
            result[position[key]] = item
        else:
            position[key] = len(result)
            result.append(item)
    return result


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            return check_int(a - b)
        if ta is float:
            return a - b
        if ta is UInt:
            return check_uint(int(a) - int(b))
        if ta is Duration:
            return check_duration(a.nanos - b.nanos)
        if ta is Timestamp:
            return check_duration(a.nanos - b.nanos)
    elif ta is Timestamp and tb is Duration:
        return check_timestamp(a.nanos - b.nanos, a.offset)
    raise CELEvalError("no such overload")


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            return check_int(a * b)
        if ta is float:
            return a * b
        if ta is UInt:
            return check_uint(int(a) * int(b))
    raise CELEvalError("no such overload")


def div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int or ta is UInt:
            if b == 0:
                raise CELEvalError("division by zero")
            q = abs(int(a)) // abs(int(b))
            if (a < 0) != (b < 0):
                q = -q
            return check_int(q) if ta is int else check_uint(q)
        if ta is float:
            if b == 0.0:
                if a == 0.0 or math.isnan(a):
                    return math.nan
                return math.copysign(math.inf, a) * math.copysign(1.0, b)
            return a / b
    raise CELEvalError("no such overload")


def mod(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and (ta is int or ta is UInt):
        if b == 0:
            raise CELEvalError("modulus by zero")
        if ta is int and a == INT64_MIN and b == -1:  # as cel-go: the quotient -MinInt64 overflows
            raise CELEvalError("integer overflow")
        r = abs(int(a)) % abs(int(b))
        if a < 0:
            r = -r
        return r if ta is int else UInt(r)
    raise CELEvalError("no such overload")


def neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        return check_int(-a)
    if t is float:
        return -a
    raise CELEvalError("no such overload")


def logical_not(a: Any) -> bool:
    if type(a) is bool:
        return not a
    raise CELEvalError("no such overload")
