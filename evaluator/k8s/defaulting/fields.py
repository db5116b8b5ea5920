"""The few primitives every defaulting function is written with, recording each field it sets.

Go's defaulters test a field against its zero value: an absent key, JSON null and the zero of the field's
type ("" for strings, 0 for integers, false for booleans, an empty list or map) all decode to that zero, so
all of them are defaulted alike. Values of the wrong type are left alone: the API server would refuse them
while decoding, and the simulation reports the object as given rather than guessing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class Recorder:
    """Collects the path of every field a defaulter set, in the order the API server sets them.

    Defaulters pass paths as prefixes: the container's path followed by "." ("" for the object itself), so that
    a field's path is one concatenation, `prefix + key`."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[str] = []

    def set(self, parent: dict, key: str, value: Any, prefix: str) -> None:
        parent[key] = value
        self.paths.append(prefix + key)


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


def ensure(parent: dict, key: str, prefix: str, rec: Recorder) -> dict | None:
    """The object under `key`, created empty (and recorded) when absent or null; None for a non-object."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
        rec.paths.append(prefix + key)
        return value
    return value if type(value) is dict else None


def items(parent: dict, key: str) -> list[tuple[int, dict]]:
    """(index, element) of the objects in the list under `key` (non-objects are skipped)."""
    value = parent.get(key)
    if type(value) is not list:
        return []
    return [(i, element) for i, element in enumerate(value) if type(element) is dict]


# The three setters below are the hot path of defaulting (a dozen calls per workload): each tests the zero
# value itself rather than through is_zero_* and records without Recorder.set, one call per field.
def default_string(parent: dict, key: str, value: str, prefix: str, rec: Recorder) -> None:
    current = parent.get(key)
    if current is None or current == "":
        parent[key] = value
        rec.paths.append(prefix + key)


def default_pointer(parent: dict, key: str, value: Any, prefix: str, rec: Recorder) -> None:
    if parent.get(key) is None:
        parent[key] = value
        rec.paths.append(prefix + key)


def default_int(parent: dict, key: str, value: int, prefix: str, rec: Recorder) -> None:
    current = parent.get(key)
    if current is None or (type(current) is int and current == 0):
        parent[key] = value
        rec.paths.append(prefix + key)


def set_all_absent(parent: dict, defaults: dict, keys: tuple[str, ...], prefix: str, rec: Recorder) -> bool:
    """Set every field of `defaults` (whose keys, in order, are `keys`) when none of them is in `parent`, and
    say whether it did. `defaults` is shared between calls: the caller replaces any mutable value after it.

    This is the usual case (users rarely write the defaulted fields), and then it gives exactly what setting
    them one by one gives: each key is new, so it is appended in the same order. When any key is there (even
    null), nothing is changed and the caller defaults field by field."""
    if not parent.keys().isdisjoint(keys):
        return False
    parent.update(defaults)
    rec.paths.extend(_prefixed(prefix, keys))
    return True


@functools.lru_cache(maxsize=1024)
def _prefixed(prefix: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The recorded paths of `keys` under `prefix`: a workload kind has a handful of prefixes, made once."""
    return tuple(prefix + key for key in keys)


def clone(value: Any) -> Any:
    """A copy of JSON-like data (dicts and lists copied, scalars shared): much faster than copy.deepcopy.
    Other mappings become dicts. Scalars are returned without a call (most leaves are scalars)."""
    kind = type(value)
    if kind is dict:
        return clone_dict(value)
    if kind is not list and isinstance(value, dict):
        return clone_dict(dict(value.items()))
    if kind is list:
        return _clone_list(value)
    return value


def clone_dict(value: dict) -> dict:
    """`clone` of a dict (of exactly that type: a subclass is made one by dict(items()) first)."""
    out = value.copy()  # at C speed, then each container value replaced by its copy
    for key, item in out.items():
        kind = type(item)
        if kind in _SCALARS:  # most values: one test
            continue
        if kind is dict:
            out[key] = clone_dict(item)
        elif kind is list:
            out[key] = _clone_list(item)
        elif isinstance(item, dict):
            out[key] = clone_dict(dict(item.items()))
    return out


def _clone_list(value: list) -> list:
    out = value.copy()  # a list (callers check the exact type); its container items replaced by their copies
    for index, item in enumerate(value):
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind is dict:
            out[index] = clone_dict(item)
        elif kind is list:
            out[index] = _clone_list(item)
        elif isinstance(item, dict):
            out[index] = clone_dict(dict(item.items()))
    return out


_SCALARS = frozenset({str, int, float, bool, type(None)})


Defaulter = Callable[[dict, Recorder], None]
