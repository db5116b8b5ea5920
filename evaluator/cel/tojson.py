"""CEL values as plain JSON-like data, the documented form of `evaluate()`'s results.

bytes → base64 text; timestamp → RFC 3339 text; duration → protobuf JSON text ("1.5s"); uint → int;
type → its name; optional → its value or None; library types → their `cel_json()` or string form.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from evaluator.cel.values import LIST_TYPES, CelType, Duration, Optional, Timestamp, format_duration, format_timestamp


def to_json(value: Any) -> Any:
    t = type(value)
    if value is None or t is bool or t is int or t is float or t is str:
        return value
    if isinstance(value, int):
        return int(value)
    if t in LIST_TYPES:
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {(k if type(k) is str else key_text(k)): to_json(v) for k, v in value.items()}
    if t is bytes:
        return base64.b64encode(value).decode("ascii")
    if t is Timestamp:
        return format_timestamp(value)
    if t is Duration:
        return format_duration(value)
    if t is CelType:
        return value.name
    if t is Optional:
        return to_json(value.value) if value.has_value else None
    custom = getattr(value, "cel_json", None)
    if custom is not None:
        return custom()
    return str(value)


def key_text(k: Any) -> str:
    """A map key as text, as JSON object keys and Go's %v print cel-go's Bool, Int, Uint and String."""
    if type(k) is bool:
        return "true" if k else "false"
    return str(int(k)) if isinstance(k, int) else str(k)
