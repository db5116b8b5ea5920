"""Custom-resource data as CEL sees it, converted once along the schema (apiserver `UnstructuredToVal`).

Strings with format date/date-time/duration/byte become timestamps, durations and bytes; integers under a
`number` schema become doubles; data that does not fit the schema becomes an `InvalidData` marker that
raises cel-go's message when a rule reads it (in Go the conversion error is a CEL error value).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.timeconv import parse_duration, parse_timestamp
from evaluator.cel.values import CheckedList, MapList, SetList, Timestamp, Unreadable
from evaluator.crd import structural as st

_GO_TYPES = {
    str: "string",
    bool: "bool",
    int: "int64",
    float: "float64",
    dict: "map[string]interface {}",
    list: "[]interface {}",
    type(None): "<nil>",
}


# A value that does not fit its schema; reading it is the error.
InvalidData = Unreadable


class CheckedMap(Mapping):
    """A map some of whose values are `InvalidData`: reading one raises, as cel-go's error value would."""

    def __init__(self, data: dict[str, Any]):
        self._data = data

    @property
    def raw(self) -> dict[str, Any]:
        return self._data

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        if type(value) is InvalidData:
            raise CELEvalError(value.message)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _go_type(value: Any) -> str:
    return _GO_TYPES.get(type(value), type(value).__name__)


def to_cel(data: Any, schema: Mapping[str, Any], depth: int = 0) -> Any:
    """The CEL value of `data` under `schema` (a plain structure: dicts, lists and CEL scalars)."""
    if depth > 200:
        return InvalidData("max recursion depth exceeded")
    if data is None:
        return None if st.nullable(schema) else InvalidData("invalid data, got null for schema with nullable=false")
    if st.is_int_or_string(schema):
        if isinstance(data, str) or (isinstance(data, int) and not isinstance(data, bool)):
            return data
        return InvalidData("invalid data, expected XIntOrString value to be either a string or integer")
    kind = st.type_of(schema)
    convert = _BY_TYPE.get(kind)
    if convert is not None:
        return convert(data, schema, depth)
    if st.flag(schema, "x-kubernetes-preserve-unknown-fields"):
        return data
    return InvalidData(
        "invalid type, expected object, array, number, integer, boolean or string, or no type with "
        f"x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got {kind}"
    )


def _map_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(data, dict):
        return InvalidData("invalid data, expected a map for the provided schema with type=object")
    if st.is_embedded(schema):
        schema = st.with_type_and_object_meta(schema)
    props = st.properties(schema)
    if props is not None:
        # Fields outside the schema are invisible; a null field of an object is an absent field.
        # Unknown fields kept by x-kubernetes-preserve-unknown-fields still count in equality.
        keep_unknown = st.flag(schema, "x-kubernetes-preserve-unknown-fields")
        return _object(
            {
                k: to_cel(v, st.node(props[k]), depth + 1) if k in props else v
                for k, v in data.items()
                if (k in props and v is not None) or (k not in props and keep_unknown)
            }
        )
    extra = st.additional_properties(schema)
    if extra is not None:
        return _object({k: to_cel(v, extra, depth + 1) for k, v in data.items()})
    return dict(data)


def _list_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(data, list):
        return InvalidData("invalid data, expected an array for the provided schema with type=array")
    item_schema = st.items(schema)
    if item_schema is None:
        return InvalidData("invalid array type, expected Items with a non-empty Schema")
    converted = [to_cel(v, item_schema, depth + 1) for v in data]
    if any(type(v) is InvalidData for v in converted):
        return CheckedList(converted)
    kind_of_list = st.list_type(schema)
    if kind_of_list == "set":
        return SetList(converted)
    if kind_of_list == "map":
        return MapList(converted, tuple(st.list_map_keys(schema)))
    return converted


def _string_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(data, str):
        return InvalidData(f"invalid data, expected string, got {_go_type(data)}")
    return _string(data, schema.get("format"))


def _double_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)
    return InvalidData(f"invalid data, expected float, got {_go_type(data)}")


def _int_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if isinstance(data, int) and not isinstance(data, bool):
        return data
    return InvalidData(f"invalid data, expected int, got {_go_type(data)}")


def _bool_value(data: Any, schema: Mapping[str, Any], depth: int) -> Any:
    if isinstance(data, bool):
        return data
    return InvalidData(f"invalid data, expected bool, got {_go_type(data)}")


# The conversion of each schema type (the data checked against it first).
_BY_TYPE: dict[str, Callable[[Any, Mapping[str, Any], int], Any]] = {
    "object": _map_value,
    "array": _list_value,
    "string": _string_value,
    "number": _double_value,
    "integer": _int_value,
    "boolean": _bool_value,
}


def _object(converted: dict[str, Any]) -> Mapping[str, Any]:
    if any(type(v) is InvalidData for v in converted.values()):
        return CheckedMap(converted)
    return converted


def _string(text: str, fmt: Any) -> Any:
    try:
        if fmt == "duration":
            return parse_duration(text)
        if fmt == "date":
            return _date(text)
        if fmt == "date-time":
            return parse_timestamp(_date_time(text))
        if fmt == "byte":
            return _base64(text)
    except CELEvalError as e:
        label = {
            "duration": "duration",
            "date": "date formatted string",
            "date-time": "date-time formatted string",
            "byte": "byte formatted string",
        }[fmt]
        return InvalidData(f"Invalid {label} {text}: {e.message}")
    return text


def _date(text: str) -> Timestamp:
    import re

    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text)
    if not m:
        raise CELEvalError(f'parsing time "{text}" as "2006-01-02": cannot parse "{text}" as "2006"')
    return parse_timestamp(f"{text}T00:00:00Z")


def _date_time(text: str) -> str:
    """strfmt.ParseDateTime accepts a space for T, lower-case letters and a missing seconds fraction."""
    if len(text) > 10 and text[10] == " ":
        text = text[:10] + "T" + text[11:]
    return text


def _base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        try:
            return base64.urlsafe_b64decode(text)
        except (binascii.Error, ValueError) as e:
            raise CELEvalError(str(e)) from None


class Activation(CheckedMap):
    """`self` and `oldSelf` for one rule; reading an `InvalidData` root raises its message."""
