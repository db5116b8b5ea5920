"""Decoding of the conformance data's tagged values into CEL values, and type-aware comparison."""

from __future__ import annotations

import base64
import math
from typing import Any

from evaluator.cel.library.timeconv import parse_duration, parse_timestamp
from evaluator.cel.values import CelType, Duration, Optional, Timestamp, UInt

_TYPE_NAMES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}


def decode(tagged: dict) -> Any:
    ((kind, v),) = tagged.items()
    if kind == "null":
        return None
    if kind == "bool":
        return bool(v)
    if kind == "int64":
        return int(v)
    if kind == "uint64":
        return UInt(int(v))
    if kind == "double":
        if isinstance(v, str):
            return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
        return float(v)
    if kind == "string":
        return v
    if kind == "bytes_b64":
        return base64.b64decode(v)
    if kind == "list":
        return [decode(x) for x in v]
    if kind == "map":
        return {decode(k): decode(x) for k, x in v}
    if kind == "type":
        return CelType(v)
    if kind == "timestamp":
        return parse_timestamp(v)
    if kind == "duration":
        return parse_duration(v)
    if kind == "object" and "cel_value" in v:
        return decode(v["cel_value"])
    raise ValueError(f"unsupported tagged value {kind}")


def same(a: Any, b: Any) -> bool:
    """CEL value equality that also keeps int, uint and double apart (NaN matches NaN)."""
    ta, tb = type(a), type(b)
    if ta is not tb:
        if {ta, tb} <= {list, tuple}:
            pass
        elif isinstance(a, dict) and isinstance(b, dict):
            pass
        else:
            return False
    if ta is float:
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)) or a == b
    if ta in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        for k, v in a.items():
            match = [bv for bk, bv in b.items() if type(bk) is type(k) and bk == k]
            if not match or not same(v, match[0]):
                return False
        return True
    if ta is Optional:
        return a.has_value == b.has_value and (not a.has_value or same(a.value, b.value))
    if ta in (Timestamp, Duration, CelType):
        return a == b
    return a == b
