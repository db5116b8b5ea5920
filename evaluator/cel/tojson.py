"""CEL values as plain JSON-like data, the documented form of `evaluate()`'s results.

bytes → base64 text; timestamp → RFC 3339 text; duration → protobuf JSON text ("1.5s"); uint → int;
type → its name; optional → its value or None; library types → their `cel_json()` or string form.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Callable

from evaluator.cel.values import (
    LIST_TYPES,
    CelType,
    Duration,
    Optional,
    Timestamp,
    UInt,
    format_duration,
    format_timestamp,
)


def to_json(value: Any) -> Any:
    t = type(value)
    if value is None or t is bool or t is int or t is float or t is str:
        return value
    convert = _BY_TYPE.get(t)
    if convert is not None:
        return convert(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Mapping):
        return _map(value)
    custom = getattr(value, "cel_json", None)
    return custom() if custom is not None else str(value)


def _map(value: Mapping) -> dict:
    return {(k if type(k) is str else key_text(k)): to_json(v) for k, v in value.items()}


def _list(value: Any) -> list:
    return [to_json(v) for v in value]


_BY_TYPE: dict[type, Callable[[Any], Any]] = {
    **dict.fromkeys(LIST_TYPES, _list),
    dict: _map,
    UInt: int,
    bytes: lambda v: base64.b64encode(v).decode("ascii"),
    Timestamp: format_timestamp,
    Duration: format_duration,
    CelType: lambda v: v.name,
    Optional: lambda v: to_json(v.value) if v.has_value else None,
}


def key_text(k: Any) -> str:
    """A map key as text, as JSON object keys and Go's %v print cel-go's Bool, Int, Uint and String."""
    if type(k) is bool:
        return "true" if k else "false"
    return str(int(k)) if isinstance(k, int) else str(k)
