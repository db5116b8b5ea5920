"""The few primitives every defaulting function is written with, recording each field it sets.

Go's defaulters test a field against its zero value: an absent key, JSON null and the zero of the field's
type ("" for strings, 0 for integers, false for booleans, an empty list or map) all decode to that zero, so
all of them are defaulted alike. Values of the wrong type are left alone: the API server would refuse them
while decoding, and the simulation reports the object as given rather than guessing.

A struct's defaults are declared once, as a `Defaults` table of `Field`s (or a `WhenAbsent` walk); the
shortcuts for the usual case are made from those declarations and read `evaluator.shortcuts.ON`, so that
`with shortcuts.off():` runs the general walk only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from evaluator import shortcuts


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


# One field defaulted where a table of one would say no more (a field between conditions).
def default_string(parent: dict, key: str, value: str, prefix: str, rec: Recorder) -> None:
    if is_zero_string(parent.get(key)):
        rec.set(parent, key, value, prefix)


def default_pointer(parent: dict, key: str, value: Any, prefix: str, rec: Recorder) -> None:
    if parent.get(key) is None:  # is_unset, inline: a workload's replicas, on the hot path
        parent[key] = value
        rec.paths.append(prefix + key)


# How a field's zero value is recognised: by its Go type.
STRING = is_zero_string
INT = is_zero_int
POINTER = is_unset


class Field(NamedTuple):
    """One defaulted field, set when `is_zero` says it holds its type's zero: to `value` (`{}`: a new empty
    object for each parent), or to `make(the parent's field source)` for a value that depends on another
    field (a container's pull policy on its image)."""

    key: str
    value: Any
    is_zero: Callable[[Any], bool]
    make: Callable[[Any], Any] | None = None
    source: str = ""

    def value_for(self, parent: dict) -> Any:
        if self.make is not None:
            return self.make(parent.get(self.source))
        return {} if type(self.value) is dict else self.value


class Defaults:
    """The defaulted fields of one struct, in the API server's order: the single declaration from which both
    ways of applying them are made.

    The general way tests each field in turn. The shortcut is the usual case (users rarely write defaulted
    fields): when none of the keys is in the object, every field is set at once (`dict.update` with the values
    in order, then the fresh and made ones replaced in place), which gives the same keys, order and recorded
    paths as the general way. That holds because no `make` reads a field of its own table (checked here)."""

    __slots__ = ("fields", "keys", "_values", "_fresh", "_made", "_paths")

    def __init__(self, *fields: Field) -> None:
        self.fields = fields
        self.keys = tuple(field.key for field in fields)
        for field in fields:
            assert field.source not in self.keys, f"{field.key} is made from {field.source}, of the same table"
            assert type(field.value) not in (dict, list) or field.value == {}, f"{field.key}: a shared object or list"
        self._values = {field.key: field.value for field in fields}
        self._fresh = tuple(field.key for field in fields if type(field.value) is dict)
        self._made = tuple((field.key, field.make, field.source) for field in fields if field.make is not None)
        self._paths = _PathsUnder(self.keys)

    def apply(self, parent: dict, prefix: str, rec: Recorder) -> None:
        if shortcuts.ON and parent.keys().isdisjoint(self.keys):
            parent.update(self._values)
            for key in self._fresh:
                parent[key] = {}
            for key, make, source in self._made:
                parent[key] = make(parent.get(source))
            rec.paths.extend(self._paths[prefix])
            return
        for field in self.fields:
            if field.is_zero(parent.get(field.key)):
                parent[field.key] = field.value_for(parent)
                rec.paths.append(prefix + field.key)


class WhenAbsent:
    """A struct field that the API server creates when absent and then defaults, declared by its general walk
    `walk(parent, prefix, rec)` alone: the shortcut for an absent field (the usual case) builds what that walk
    makes of an empty parent, found once here. The walk must read nothing of the parent but `key`, so that
    what it makes of an empty parent is what it makes of any parent without `key`."""

    __slots__ = ("key", "walk", "_build", "_paths")

    def __init__(self, key: str, walk: Callable[[dict, str, Recorder], None]) -> None:
        parent: dict = {}
        rec = Recorder()
        with shortcuts.off():
            walk(parent, "", rec)
        assert list(parent) == [key], f"{walk.__name__} sets more than {key!r}"
        self.key, self.walk, self._build, self._paths = key, walk, _builder(parent[key]), _PathsUnder(tuple(rec.paths))

    def apply(self, parent: dict, prefix: str, rec: Recorder) -> None:
        if shortcuts.ON and self.key not in parent:
            parent[self.key] = self._build()
            rec.paths.extend(self._paths[prefix])
        else:
            self.walk(parent, prefix, rec)


def _builder(value: Any) -> Callable[[], Any]:
    """A function that builds `value` (JSON-like constants) anew as one literal, as written out by hand: a
    copy at the speed of the literal, with nothing shared between the objects it is built into (the same
    compile-at-import that collections.namedtuple does)."""
    text = repr(value)
    build = eval(f"lambda: {text}", {"__builtins__": {}})  # our own constant, checked below
    assert build() == value and repr(build()) == text, f"{text} is not a literal"
    return build


class _PathsUnder(dict):
    """{prefix: the recorded paths of `names` under it}, each made on first use: a workload kind has a handful
    of prefixes, so the shortcuts record theirs with one look-up (at most 1,024 kept, like any cache here)."""

    __slots__ = ("names",)

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, prefix: str) -> tuple[str, ...]:
        paths = tuple(prefix + key for key in self.names)
        if len(self) < 1024:
            self[prefix] = paths
        return paths


def clone(value: Any) -> Any:
    """A copy of JSON-like data (dicts and lists copied, scalars shared): much faster than copy.deepcopy.
    Other mappings become dicts. Scalars are returned without a call (most leaves are scalars)."""
    kind = type(value)
    if kind is dict:
        return clone_dict(value)
    if kind is not list and isinstance(value, dict):
        return clone_dict(dict(value.items()))
    if kind is list:
        out = value.copy()
        _clone_containers(out, enumerate(value))
        return out
    return value


def clone_dict(value: dict) -> dict:
    """`clone` of a dict (of exactly that type: a subclass is made one by dict(items()) first)."""
    out = value.copy()  # at C speed, then each container value replaced by its copy
    _clone_containers(out, out.items())
    return out


def _clone_containers(out: Any, entries: Iterable[tuple[Any, Any]]) -> None:
    """Replace each container among the (key or index, item) `entries` of the shallow copy `out` by a shallow
    copy of it, and so on inside (one call a container: this runs for every request)."""
    for key, item in entries:
        kind = type(item)
        if kind in _SCALARS:  # most values: one test
            continue
        if kind is dict:
            out[key] = copied = item.copy()
            _clone_containers(copied, copied.items())
        elif kind is list:
            out[key] = copied = item.copy()  # a list (callers check the exact type)
            _clone_containers(copied, enumerate(item))
        elif isinstance(item, dict):
            out[key] = copied = dict(item.items())
            _clone_containers(copied, copied.items())


_SCALARS = frozenset({str, int, float, bool, type(None)})


Defaulter = Callable[[dict, Recorder], None]


def spec_defaulter(walk: Callable[[dict, dict, Recorder], None]) -> Defaulter:
    """The defaulter of a kind whose `spec` is a struct in Go (defaulted even when absent): `walk(obj, spec,
    rec)` on the spec, created when absent or null; a spec that is not an object is left as it is."""

    @functools.wraps(walk)
    def defaulter(obj: dict, rec: Recorder) -> None:
        spec = ensure(obj, "spec", "", rec)
        if spec is not None:
            walk(obj, spec, rec)

    return defaulter
