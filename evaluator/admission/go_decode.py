"""Go's decoding of JSON into a built-in kind's Go type, as far as its errors go: the API server decodes a
request's object (and a patched object) before anything else reads it.

A value of the wrong JSON type is `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
of type int32` (encoding/json's UnmarshalTypeError: the innermost struct's Go name, the path of JSON field
names with map keys and list indices dropped); Go's decoder goes on and reports the first one. A type that
decodes itself (resource.Quantity, intstr.IntOrString, metav1.Time) ends the decoding with its own error
(`quantities must match the regular expression ...`, `parsing time "yesterday" as ...`: `k8s/go_time.py`).
A field the type does not have is dropped, or is `strict decoding error: unknown field "spec.containers[0].a"`
under strict decoding. The Go types come from OpenAPI (`object_schema`). Custom resources decode into
unstructured data: nothing here applies to them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evaluator.cel.library.quantity import ERR_FORMAT, QuantityError, parse_quantity
from evaluator.cel.memo import remembered_when_short
from evaluator.k8s.go_time import RFC3339, RFC3339_MICRO, parse_error
from evaluator.k8s.json_kinds import json_kind
from evaluator.k8s.object_schema import ANY, LIST, MAP, SCALAR, STRUCT, Node, ObjectSchema, child_node

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _go_type(node: Node, objschema: ObjectSchema) -> str:
    """The Go type as `reflect.Type.String()` prints it, as far as OpenAPI tells (a named string or map
    type, `v1.PullPolicy` or `v1.ResourceList`, reads as its underlying type)."""
    if node.kind == STRUCT:
        return node.go_type or node.go_name or "struct {}"
    if node.kind == MAP:
        return "map[string]" + _go_type(child_node(objschema, node, ""), objschema)
    if node.kind == LIST:
        return "[]" + _go_type(child_node(objschema, node, ""), objschema)
    if node.kind == ANY:
        return "interface {}"
    if node.scalar == "integer":
        return _int_type(node)
    if node.scalar == "number":
        return "float64"
    if node.scalar == "boolean":
        return "bool"
    return "string"


# The kind words of Go's encoding/json errors ("cannot unmarshal number into ..."): one for every number.
_GO_JSON_KINDS = {
    "null": "null",
    "bool": "bool",
    "int": "number",
    "float": "number",
    "string": "string",
    "list": "array",
    "map": "object",
}


def _json_kind(value: Any) -> str:
    """Go's word for a value's JSON type (what JSON cannot hold, a YAML `!!binary`, reaches the API server as
    the string kubectl writes for it)."""
    return _GO_JSON_KINDS.get(json_kind(value), "string")


def _number_text(value: Any) -> str:
    """A number as JSON writes it (Go quotes the literal when it does not fit: `number 1.5`)."""
    return json.dumps(value)


def _int_type(node: Node) -> str:
    return node.format if node.format in _INT_RANGES else "int64"


def _integer_fits(value: Any, go_type: str) -> bool:
    if isinstance(value, float) and not value.is_integer():
        return False
    low, high = _INT_RANGES.get(go_type, _INT_RANGES["int64"])
    return low <= int(value) <= high


class _Refused(Exception):
    """An error of a type's own UnmarshalJSON (a quantity, an int-or-string): Go stops decoding at it."""


@remembered_when_short(64, size=1024)
def _quantity_error(text: str) -> str | None:
    try:
        parse_quantity(text.strip())
    except QuantityError as err:
        return str(err)
    return None


@remembered_when_short(64, size=1024)
def _time_error(text: str) -> str | None:
    return parse_error(RFC3339, text)


@remembered_when_short(64, size=1024)
def _micro_time_error(text: str) -> str | None:
    return parse_error(RFC3339_MICRO, text)


# metav1.Time and metav1.MicroTime decode themselves: a JSON string that Go's time.Parse reads in their layout.
_TIME_ERRORS = {"Time": _time_error, "MicroTime": _micro_time_error}


def _scalar_fits(node: Node, value: Any) -> bool:
    """The one statement of what a Go scalar takes from JSON (a quantity, an int-or-string and a time: what
    their own decoders take). Both the walk and its shortcut for leaves read it."""
    scalar = node.scalar
    if isinstance(value, str):
        if scalar == "quantity":
            return _quantity_error(value) is None
        if scalar == "string" and node.go_name in _TIME_ERRORS:
            return _TIME_ERRORS[node.go_name](value) is None
        return scalar in _TAKES_TEXT or scalar not in _KNOWN_SCALARS
    if scalar == "string" and node.go_name in _TIME_ERRORS:
        return json_kind(value) == "other"  # what JSON cannot hold reaches the API server as text
    if isinstance(value, bool):
        return scalar == "boolean" or scalar not in _KNOWN_SCALARS
    if isinstance(value, (int, float)):
        if scalar == "integer" or scalar == "int-or-string":
            return _integer_fits(value, _int_type(node) if scalar == "integer" else "int32")
        if scalar == "quantity":
            return _quantity_error(_number_text(value)) is None
        return scalar == "number" or scalar not in _KNOWN_SCALARS
    if json_kind(value) == "other":  # what JSON cannot hold reaches the API server as text
        return scalar in _TAKES_TEXT or scalar not in _KNOWN_SCALARS
    return scalar not in _KNOWN_SCALARS  # an object or an array


_TAKES_TEXT = ("string", "int-or-string")  # and a quantity, when it parses
_KNOWN_SCALARS = ("string", "integer", "number", "boolean", "int-or-string", "quantity")


def _scalar_mismatch(node: Node, value: Any) -> str | None:
    """Go's word for `value` when it does not fit the scalar `node` (None when it does); a quantity's or an
    int-or-string's own decoder ends the decoding with its error instead (`_Refused`)."""
    if _scalar_fits(node, value):
        return None
    kind = _json_kind(value)
    number = f"number {_number_text(value)}" if kind == "number" else kind
    if node.scalar == "quantity":  # resource.Quantity.UnmarshalJSON
        text = value if isinstance(value, str) else _number_text(value) if kind == "number" else ""
        raise _Refused((_quantity_error(text) if text else None) or ERR_FORMAT)
    if node.scalar == "int-or-string":  # intstr.IntOrString.UnmarshalJSON: a non-string is an int32
        raise _Refused(f"json: cannot unmarshal {number} into Go value of type int32")
    if node.go_name in _TIME_ERRORS:  # metav1.Time.UnmarshalJSON: a string, then time.Parse
        if isinstance(value, str):
            raise _Refused(_TIME_ERRORS[node.go_name](value) or "")
        raise _Refused(f"json: cannot unmarshal {kind} into Go value of type string")
    return number if node.scalar == "integer" else kind


@dataclass(frozen=True)
class WrongType:
    """A value the Go type cannot take: Go's words, and where it is (map keys and list indices kept, as
    `spec.containers[0].image`) for locating it in the text."""

    message: str
    path: str


def decode_problems(obj: Any, objschema: ObjectSchema) -> tuple[list[WrongType], list[str]]:
    """Decoding `obj` into its Go type (only typed built-ins): the values of the wrong type, in the
    document's order (or the one error a type's own decoding stopped at), and the paths of fields the type
    does not have (an error under strict decoding)."""
    type_errors: list[WrongType] = []
    unknown: list[str] = []
    if objschema.typed:
        path: list[Segment] = []
        try:
            _decode(obj, objschema.root_node(), objschema, path, "", type_errors, unknown)
        except _Refused as refused:
            return [WrongType(str(refused), _located(path))], unknown
    return type_errors, unknown


def strict_decoding_error(unknown: list[str]) -> str:
    """The error a strict decoder gives for fields the type does not have."""
    return "strict decoding error: " + ", ".join(unknown_field_warning(u) for u in unknown)


def unknown_field_warning(path: str) -> str:
    """The API server's word for one field the type does not have (its Warning under fieldValidation Warn)."""
    return f'unknown field "{path}"'


def without_unknown_fields(obj: Any, objschema: ObjectSchema) -> Any:
    """`obj` as the Go type holds it: the fields the type does not have dropped (a copy where one was)."""
    return _pruned(obj, objschema.root_node(), objschema) if objschema.typed else obj


def _pruned(value: Any, node: Node, objschema: ObjectSchema) -> Any:
    if node.kind == STRUCT and type(value) is dict:
        if node.open:
            return value
        fields = objschema.schema.fields_of(node)
        return {k: _pruned(v, fields[k], objschema) for k, v in value.items() if k in fields}
    if node.kind == MAP and type(value) is dict:
        element = child_node(objschema, node, "")
        return {k: _pruned(v, element, objschema) for k, v in value.items()}
    if node.kind == LIST and type(value) is list:
        element = child_node(objschema, node, "")
        return [_pruned(v, element, objschema) for v in value]
    return value


def decode_errors(obj: Any, objschema: ObjectSchema) -> str | None:
    """The error of decoding `obj` strictly into its Go type, or None (only for typed built-ins): Go's
    decoder reports the first value of the wrong type; else every unknown field."""
    type_errors, unknown = decode_problems(obj, objschema)
    if type_errors:
        return type_errors[0].message
    return strict_decoding_error(unknown) if unknown else None


def _decode(
    value: Any,
    node: Node,
    objschema: ObjectSchema,
    path: list[Segment],
    struct: str,
    type_errors: list[WrongType],
    unknown: list[str],
) -> None:
    """Walks `value` as Go's decoder does; `path` holds the segments down to it."""
    if value is None or node.kind == ANY:
        return
    if node.kind == SCALAR:
        mismatch = _scalar_mismatch(node, value)
    elif type(value) is not (list if node.kind == LIST else dict):
        mismatch = _json_kind(value)
        mismatch = None if mismatch == ("array" if node.kind == LIST else "object") else mismatch
    else:
        mismatch = None
    if mismatch is not None:
        where = f"Go struct field {struct}.{_field_names(path)}" if struct else "Go value"
        message = f"json: cannot unmarshal {mismatch} into {where} of type {_go_type(node, objschema)}"
        type_errors.append(WrongType(message, _located(path)))
        return
    if node.kind == STRUCT:
        fields, struct = objschema.schema.fields_of(node), node.go_name or struct
        for key, child_value in value.items():
            child = fields.get(key)
            if child is None:
                if not node.open:
                    unknown.append(_strict([*path, (FIELD, key)]))
                continue
            if not _fits_at_once(child, child_value):
                path.append((FIELD, key))
                _decode(child_value, child, objschema, path, struct, type_errors, unknown)
                path.pop()
    elif node.kind in (MAP, LIST):
        element = child_node(objschema, node, "")
        step = KEY if node.kind == MAP else INDEX
        for key, child_value in value.items() if node.kind == MAP else enumerate(value):
            if not _fits_at_once(element, child_value):
                path.append((step, key))
                _decode(child_value, element, objschema, path, struct, type_errors, unknown)
                path.pop()


def _fits_at_once(node: Node, value: Any) -> bool:
    """A leaf decided without the walk (most of an object is strings, booleans and small integers)."""
    return value is None or node.kind == ANY or node.kind == SCALAR and _scalar_fits(node, value)


# A step down an object: a struct's field, a list's index or a map's key.
FIELD, INDEX, KEY = "field", "index", "key"
Segment = tuple[str, Any]


def _located(path: list[Segment]) -> str:
    """The path a located error names: `spec.containers[0].resources.limits[cpu]` (a map key in brackets,
    as it may hold dots: `metadata.labels[app.kubernetes.io/name]`)."""
    return "".join(f".{name}" if step == FIELD else f"[{name}]" for step, name in path).removeprefix(".")


def _strict(path: list[Segment]) -> str:
    """The path a strict decoding error names: `spec.containers[0].foo`, a map key as a field."""
    return "".join(f"[{name}]" if step == INDEX else f".{name}" for step, name in path).removeprefix(".")


def _field_names(path: list[Segment]) -> str:
    """Go's UnmarshalTypeError field path: the JSON field names, map keys and list indices dropped."""
    return ".".join(name for step, name in path if step == FIELD)
