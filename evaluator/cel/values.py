"""CEL values as plain Python data.

Objects decoded from YAML/JSON are CEL values as they are (dict, list, str, int, float, bool, None), so a
request is never converted. Only the CEL types without a JSON twin get a class here: uint, timestamp,
duration, type values and optionals. Library types (quantity, ip, ...) live beside their functions.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.k8s.json_kinds import json_kind


class UInt(int):
    """A CEL uint. Plain int arithmetic and comparison; the operators module enforces CEL's rules."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class MixedKeyMap(Mapping):
    """A CEL map holding both a bool key and a numeric key that Python deems equal (`true` and `1`).

    A dict would merge them (True == 1), where CEL keeps `true`, `1` (and `1u`, `1.0`, which are the same
    numeric key) apart. Map literals switch to this class only on such a collision, so every other map
    stays a plain dict; lookups match a bool only with a bool and numbers only with numbers.
    """

    __slots__ = ("_pairs",)

    def __init__(self, pairs: list[tuple[Any, Any]]):
        self._pairs = pairs

    def __getitem__(self, key: Any) -> Any:
        """The entry of exactly this key (type and value), else of an equal number of the other integer type."""
        is_bool = type(key) is bool
        other = None
        for k, v in self._pairs:
            if type(k) is type(key) and k == key:
                return v
            if other is None and type(k) is not str and (type(k) is bool) == is_bool and k == key:
                other = (v,)
        if other is not None:
            return other[0]
        raise KeyError(key)

    def index(self, key: Any) -> int | None:
        """Where exactly this key (type and value) is, or None."""
        for i, (k, _) in enumerate(self._pairs):
            if type(k) is type(key) and k == key:
                return i
        return None

    def put(self, key: Any, value: Any) -> None:
        i = self.index(key)
        if i is None:
            self._pairs.append((key, value))
        else:
            self._pairs[i] = (key, value)

    def remove(self, key: Any) -> None:
        i = self.index(key)
        if i is not None:
            del self._pairs[i]

    def add(self, key: Any, value: Any) -> None:
        """Append an entry (the caller has checked that the key is new)."""
        self._pairs.append((key, value))

    def __iter__(self):
        return (k for k, _ in self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self._pairs) + "}"


def _stored_key(out: dict, key: Any) -> Any:
    """The key object a dict holds for `key` (Python finds `1` for `true`, `1u` for `1`)."""
    for k in out:
        if k == key and type(k) is not str:
            return k
    return key


def map_insert(out: "dict | MixedKeyMap", key: Any, value: Any) -> "dict | MixedKeyMap":
    """Add a new key to a map under construction; a dict becomes a MixedKeyMap when a dict would merge it."""
    if type(out) is dict:
        if key not in out:
            out[key] = value
            return out
        out = MixedKeyMap(list(out.items()))
    out.add(key, value)
    return out


def map_put(out: "dict | MixedKeyMap", key: Any, value: Any) -> "dict | MixedKeyMap":
    """cel-go's map literal (`entries[k] = v`): the same key (type and value) again replaces its value; keys
    CEL tells apart but a dict would merge (`true` and `1`, `1` and `1u`) stay two entries."""
    if type(out) is dict:
        if key not in out or type(key) is str or type(_stored_key(out, key)) is type(key):
            out[key] = value
            return out
        out = MixedKeyMap(list(out.items()))
    out.put(key, value)
    return out


def map_delete(out: "dict | MixedKeyMap", key: Any) -> None:
    """cel-go's `delete(entries, k)` for an absent optional entry: only exactly this key goes."""
    if type(out) is dict:
        if key in out and (type(key) is str or type(_stored_key(out, key)) is type(key)):
            del out[key]
    else:
        out.remove(key)


__all__ = [
    "MixedKeyMap",
    "map_insert",
    "map_put",
    "map_delete",
    "UInt",
    "Timestamp",
    "Duration",
    "CelType",
    "Optional",
    "OPTIONAL_NONE",
    "type_of",
    "type_name",
    "INT64_MIN",
    "INT64_MAX",
    "UINT64_MAX",
    "SetList",
    "MapList",
    "LIST_TYPES",
    "Unreadable",
    "CheckedList",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
_NANOS = 1_000_000_000
# Seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range cel-go accepts.
TS_MIN_SECONDS = -62135596800
TS_MAX_SECONDS = 253402300799
# cel-go bounds durations by what fits int64 nanoseconds.
DUR_MAX_NANOS = INT64_MAX


class SetList(list):
    """A list under `x-kubernetes-list-type: set` (Kubernetes' unstructuredSetList): `==` ignores order and
    `+` is a union that keeps this list's order and appends the other's new elements."""

    __slots__ = ()


class MapList(list):
    """A list under `x-kubernetes-list-type: map` (Kubernetes' unstructuredMapList): items are identified by
    their `x-kubernetes-list-map-keys`; `==` ignores order and `+` merges by key (the right side's item
    replaces the left's in place, new keys are appended)."""

    __slots__ = ("key_props",)

    def __init__(self, items: Any = (), key_props: tuple[str, ...] = ()):
        super().__init__(items)
        self.key_props = key_props


class Unreadable:
    """A value inside data whose reading is an error (in cel-go, an error value held by a list or map, as
    Kubernetes' UnstructuredToVal makes of data that does not fit its schema)."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class CheckedList(list):
    """A list some of whose items are `Unreadable`: indexing one raises its message."""

    __slots__ = ()

    def __getitem__(self, index: Any) -> Any:
        value = list.__getitem__(self, index)
        if type(value) is Unreadable:
            raise CELEvalError(value.message)
        return value


# Every runtime representation of a CEL list (exact types: `type(v) in LIST_TYPES`).
LIST_TYPES = frozenset({list, tuple, SetList, MapList, CheckedList})


class _Nanos:
    """Equality, order and hash of a value that is a count of nanoseconds (timestamps, durations)."""

    __slots__ = ()
    nanos: int
    _HASH_TAG: str

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other.nanos == self.nanos

    def __lt__(self, other: Any) -> bool:
        return self.nanos < other.nanos

    def __hash__(self) -> int:
        return hash((self._HASH_TAG, self.nanos))


class Timestamp(_Nanos):
    """An instant with nanosecond precision (google.protobuf.Timestamp). `offset` is the UTC offset (seconds
    east) it was written with: cel-go keeps Go's time.Time location, which string() and the zone-less
    getters use; equality and ordering ignore it."""

    __slots__ = ("nanos", "offset")
    _HASH_TAG = "ts"

    def __init__(self, nanos: int, offset: int = 0):
        self.nanos = nanos
        self.offset = offset

    @property
    def seconds(self) -> int:
        return self.nanos // _NANOS

    def in_range(self) -> bool:
        return TS_MIN_SECONDS <= self.seconds <= TS_MAX_SECONDS

    def to_datetime(self, tz: _dt.tzinfo = _dt.timezone.utc) -> _dt.datetime:
        base = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return (base + _dt.timedelta(seconds=self.seconds)).astimezone(tz)

    def __repr__(self) -> str:
        return f"timestamp({format_timestamp(self)!r})"


class Duration(_Nanos):
    """A signed span with nanosecond precision (google.protobuf.Duration)."""

    __slots__ = ("nanos",)
    _HASH_TAG = "dur"

    def __init__(self, nanos: int):
        self.nanos = nanos

    def __repr__(self) -> str:
        return f"duration({format_duration(self)!r})"


def format_timestamp(ts: Timestamp) -> str:
    """RFC 3339 in UTC with 0, 3, 6 or 9 fraction digits, as protobuf's JSON form and cel-go's string()."""
    secs, frac = divmod(ts.nanos, _NANOS)
    base = ts.to_datetime().strftime("%Y-%m-%dT%H:%M:%S") if ts.in_range() else str(secs)
    return f"{base}{_fraction(frac)}Z"


def format_duration(d: Duration) -> str:
    """Protobuf JSON form: seconds with 0, 3, 6 or 9 fraction digits and an 's' suffix."""
    sign = "-" if d.nanos < 0 else ""
    secs, frac = divmod(abs(d.nanos), _NANOS)
    return f"{sign}{secs}{_fraction(frac)}s"


def _fraction(nanos: int) -> str:
    """Protobuf JSON's fraction of a second: none, or a dot and 3, 6 or 9 digits."""
    if nanos == 0:
        return ""
    digits = f"{nanos:09d}"
    while digits.endswith("000"):
        digits = digits[:-3]
    return "." + digits


class CelType:
    """A type value, as `type(x)` returns and type identifiers (`int`, `map`) denote."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other: Any) -> bool:
        return type(other) is CelType and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class Optional:
    """An optional value (`optional.of(x)` / `optional.none()`)."""

    __slots__ = ("value", "has_value")

    def __init__(self, value: Any = None, has_value: bool = True):
        self.value = value
        self.has_value = has_value

    def __eq__(self, other: Any) -> bool:
        if type(other) is not Optional or other.has_value != self.has_value:
            return False
        if not self.has_value:
            return True
        from evaluator.cel.operators import equals  # late: operators import values

        return equals(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("optional", self.has_value))

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value else "optional.none()"


OPTIONAL_NONE = Optional(None, False)

_TYPE_NAMES: dict[type, str] = {
    bool: "bool",
    int: "int",
    UInt: "uint",
    float: "double",
    str: "string",
    bytes: "bytes",
    type(None): "null_type",
    list: "list",
    tuple: "list",
    SetList: "list",
    CheckedList: "list",
    MapList: "list",
    dict: "map",
    Timestamp: "google.protobuf.Timestamp",
    Duration: "google.protobuf.Duration",
    CelType: "type",
    Optional: "optional_type",
}


# CEL's words for the JSON kinds (evaluator.k8s.json_kinds) of values no exact type above names.
_KIND_NAMES = {
    "null": "null_type",
    "bool": "bool",
    "int": "int",
    "float": "double",
    "string": "string",
    "map": "map",
    "list": "list",
}


def type_name(value: Any) -> str:
    """The CEL type name of a runtime value."""
    name = _TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    cel_name = getattr(type(value), "cel_type_name", None)
    if cel_name is not None:
        return cel_name
    return _KIND_NAMES.get(json_kind(value)) or type(value).__name__


def type_of(value: Any) -> CelType:
    return CelType(type_name(value))
