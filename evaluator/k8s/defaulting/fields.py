"""The few primitives every defaulting function is written with, recording each field it sets.

Go's defaulters test a field against its zero value: an absent key, JSON null and the zero of the field's
type ("" for strings, 0 for integers, false for booleans, an empty list or map) all decode to that zero, so
all of them are defaulted alike. Values of the wrong type are left alone: the API server would refuse them
while decoding, and the simulation reports the object as given rather than guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Recorder:
    """Collects the path of every field a defaulter set, in the order the API server sets them."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[str] = []

    def set(self, parent: dict, key: str, value: Any, path: str) -> None:
        parent[key] = value
        self.paths.append(f"{path}.{key}" if path else key)


def is_unset(value: Any) -> bool:
    """A pointer field that decodes to nil: absent or null."""
    return value is None


def is_zero_string(value: Any) -> bool:
    return value is None or value == ""


def is_zero_int(value: Any) -> bool:
    return value is None or (type(value) is int and value == 0)


def is_empty(value: Any) -> bool:
    """A slice or map of length 0 (Go's `len(x) == 0`)."""
    return value is None or (isinstance(value, (list, dict)) and not value)


def child(parent: dict, key: str) -> dict | None:
    """The object under `key`, or None when it is absent or not an object."""
    value = parent.get(key)
    return value if type(value) is dict else None


def ensure(parent: dict, key: str, path: str, rec: Recorder) -> dict | None:
    """The object under `key`, created empty (and recorded) when absent or null; None for a non-object."""
    value = parent.get(key)
    if value is None:
        value = {}
        rec.set(parent, key, value, path)
        return value
    return value if type(value) is dict else None


def items(parent: dict, key: str) -> list[tuple[int, dict]]:
    """(index, element) of the objects in the list under `key` (non-objects are skipped)."""
    value = parent.get(key)
    if type(value) is not list:
        return []
    return [(i, element) for i, element in enumerate(value) if type(element) is dict]


def default_string(parent: dict, key: str, value: str, path: str, rec: Recorder) -> None:
    if is_zero_string(parent.get(key)):
        rec.set(parent, key, value, path)


def default_pointer(parent: dict, key: str, value: Any, path: str, rec: Recorder) -> None:
    if parent.get(key) is None:
        rec.set(parent, key, value, path)


def default_int(parent: dict, key: str, value: int, path: str, rec: Recorder) -> None:
    if is_zero_int(parent.get(key)):
        rec.set(parent, key, value, path)


def join(path: str, key: str, index: int | None = None) -> str:
    base = f"{path}.{key}" if path else key
    return base if index is None else f"{base}[{index}]"


def clone(value: Any) -> Any:
    """A copy of JSON-like data (dicts and lists copied, scalars shared): much faster than copy.deepcopy.
    Other mappings become dicts. Scalars are returned without a call (most leaves are scalars)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, dict)):
        return _clone_dict(value)
    if kind is list:
        return _clone_list(value)
    return value


def _clone_dict(value: dict) -> dict:
    # Copied at C speed (a dict subclass becomes a dict), then each container value replaced by its copy.
    out = value.copy() if type(value) is dict else dict(value.items())
    for key, item in out.items():
        kind = type(item)
        if kind is dict:
            out[key] = _clone_dict(item)
        elif kind is list:
            out[key] = _clone_list(item)
        elif kind not in _SCALARS and isinstance(item, dict):
            out[key] = _clone_dict(item)
    return out


def _clone_list(value: list) -> list:
    out = value.copy()  # a list (callers check the exact type); its container items replaced by their copies
    for index, item in enumerate(value):
        kind = type(item)
        if kind is dict:
            out[index] = _clone_dict(item)
        elif kind is list:
            out[index] = _clone_list(item)
        elif kind not in _SCALARS and isinstance(item, dict):
            out[index] = _clone_dict(item)
    return out


_SCALARS = frozenset({str, int, float, bool, type(None)})


Defaulter = Callable[[dict, Recorder], None]
