"""The kind of a decoded JSON value, named once.

Each layer words a value's type its own way (CEL `map`, Go `map[string]interface {}`, OpenAPI `object`, JSON
Patch `object`); the layers that word a decoded JSON value start from this one classification and keep only
their vocabulary as a table (crd/values.py's Go names describe CEL values, typed by Python class, instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def json_kind(value: Any) -> str:
    """One of `null`, `bool`, `int`, `float`, `string`, `list`, `map`, or `other` (bool before int: a
    Python bool is an int)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, (list, tuple)):
        return "list"
    return "other"
