"""What the API server's typed round trips do to a patched object, as far as a patch can observe it.

- `check_type_names`: `Object.spec{selector: Object.spec.wrong{}}` is rejected before anything is
  applied (dynamic.ObjectVal.CheckTypeNamesMatchFieldPathNames).
- `to_json_value`: a CEL value as the JSON the patch carries (ObjectVal -> map, lists, scalars).
- `materialize_parents`: the JSON Patch is applied to the *encoded Go object*, where struct fields are
  always present (`"template": {"spec": {...}}`), so `add /spec/template/spec/hostNetwork` works on a
  request without `spec.template`. The OpenAPI definitions do not say which struct fields are Go
  pointers, so every absent struct-typed parent on the path is created; this accepts a few paths into
  absent pointer structs (e.g. `securityContext`) that the server refuses with "doc is missing path".
- `decode_errors`: the patched JSON is decoded strictly into the Go type: a value of the wrong JSON type
  is `json: cannot unmarshal ...`, an unknown field is `strict decoding error: unknown field "a.b"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.k8s.json_kinds import json_kind
from evaluator.policies.mutating.jsonpatch import unescape
from evaluator.policies.mutating.schema import ANY, LIST, MAP, SCALAR, STRUCT, Node, ObjectSchema


class ConversionError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# -- CEL values ------------------------------------------------------------------------------------------
def cel_type_name(value: Any) -> str | None:
    """The construction type of a constructed object (`Object.spec`, `JSONPatch`), else None."""
    name = getattr(value, "type_name", None)
    return name if isinstance(name, str) and isinstance(value, dict) else None


def check_type_names(value: Any) -> list[str]:
    """Every mismatch between nested object type names and their field path from the root object."""
    root = cel_type_name(value)
    return _type_check(value, [root]) if root is not None else []


def _type_check(value: Any, path: list[str]) -> list[str]:
    errors: list[str] = []
    name = cel_type_name(value)
    if name is not None:
        expected = ".".join(path)
        if name != expected:
            errors.append(
                f'unexpected type name "{name}", expected "{expected}", which matches field name path '
                "from root Object type"
            )
        for key, child in value.items():
            errors.extend(_type_check(child, path + [str(key)]))
    elif isinstance(value, list):
        for child in value:
            errors.extend(_type_check(child, path))
    elif isinstance(value, Mapping):
        for child in value.values():
            errors.extend(_type_check(child, path))
    return errors


_JSON_CONVERTIBLE = {"null_type", "bool", "int", "uint", "double", "string", "bytes", "timestamp", "duration"}


def to_json_value(value: Any) -> Any:
    """A CEL value as JSON data; raises ConversionError for values JSON cannot carry."""
    from evaluator.cel import to_json, type_name

    if isinstance(value, dict):
        return {_json_key(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    try:
        kind = type_name(value)
    except Exception:
        kind = type(value).__name__
    if kind not in _JSON_CONVERTIBLE:
        # cel-go converts only its built-in value types to google.protobuf.Value.
        raise ConversionError(f"type conversion error from '{kind}' to 'google.protobuf.Value'")
    try:
        converted = to_json(value)
    except Exception as exc:  # a CEL value without a JSON form (type values, optionals, ...)
        raise ConversionError(f"unsupported type conversion: {exc}") from None
    if converted is not None and not isinstance(converted, (bool, int, float, str, list, dict)):
        raise ConversionError(f"type conversion error from '{type(value).__name__}' to 'JSON'")
    return converted


def _json_key(key: Any) -> str:
    if not isinstance(key, str):
        raise ConversionError(f"map key {key!r} is of type {type(key).__name__}, not string")
    return key


# -- schema walks ------------------------------------------------------------------------------------------
def child_node(objschema: ObjectSchema, node: Node, token: str) -> Node:
    """The schema node one step below `node` (a struct field, a map value or a list item)."""
    schema = objschema.schema
    if schema is None:
        return Node(ANY)
    if node.kind == STRUCT:
        raw = node.fields.get(token)
        return schema.node(raw) if raw is not None else Node(ANY)
    if node.kind in (MAP, LIST):
        return schema.node(node.element) if node.element is not None else Node(ANY)
    return Node(ANY)


def materialize_parents(doc: Any, path: str, objschema: ObjectSchema) -> None:
    """Create the absent struct-typed parents of a JSON Pointer, as the Go encoding would show them."""
    if not objschema.typed or not isinstance(path, str) or not path.startswith("/"):
        return
    tokens = [unescape(t) for t in path.split("/")[1:-1]]
    node = objschema.root_node()
    current = doc
    for token in tokens:
        child = child_node(objschema, node, token)
        if isinstance(current, dict):
            if token not in current:
                if node.kind == STRUCT and child.kind == STRUCT:
                    current[token] = {}
                else:
                    return
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return
        node = child


_GO_INT = {"int32": "int32", "int64": "int64"}


def _go_type(node: Node) -> str:
    if node.kind == STRUCT:
        return node.go_name or "struct"
    if node.kind == MAP:
        return "map[string]" + _go_type(Node(ANY))
    if node.kind == LIST:
        return "[]"
    if node.scalar == "integer":
        return _GO_INT.get(node.format or "", "int64")
    if node.scalar == "number":
        return "float64"
    if node.scalar == "boolean":
        return "bool"
    return "string"


# The kind words of Go's encoding/json errors ("cannot unmarshal number into ..."): one for every number.
_GO_JSON_KINDS = {
    "bool": "bool",
    "int": "number",
    "float": "number",
    "string": "string",
    "list": "array",
    "map": "object",
}


def _json_kind(value: Any) -> str:
    return _GO_JSON_KINDS.get(json_kind(value), "null")


def _scalar_fits(node: Node, value: Any) -> bool:
    kind = _json_kind(value)
    if node.scalar == "string":
        return kind == "string"
    if node.scalar == "integer":
        return kind == "number" and float(value).is_integer()
    if node.scalar == "number":
        return kind == "number"
    if node.scalar == "boolean":
        return kind == "bool"
    return kind in ("string", "number")  # int-or-string, quantity


def decode_errors(obj: Any, objschema: ObjectSchema) -> str | None:
    """The error of decoding `obj` strictly into its Go type, or None (only for typed built-ins)."""
    if not objschema.typed:
        return None
    type_errors: list[str] = []
    unknown: list[str] = []
    _decode(obj, objschema.root_node(), objschema, "", "", type_errors, unknown)
    if type_errors:
        return type_errors[0]
    if unknown:
        return "strict decoding error: " + ", ".join(f'unknown field "{u}"' for u in unknown)
    return None


def _decode(
    value: Any, node: Node, objschema: ObjectSchema, path: str, struct: str, type_errors: list[str], unknown: list[str]
) -> None:
    if value is None or node.kind == ANY:
        return
    kind = _json_kind(value)
    expected = {STRUCT: "object", MAP: "object", LIST: "array"}.get(node.kind)
    field_path = path.replace("[]", "")
    if expected is not None and kind != expected or node.kind == SCALAR and not _scalar_fits(node, value):
        where = f"Go struct field {struct}.{_dotted(field_path)}" if struct else "Go value"
        type_errors.append(f"json: cannot unmarshal {kind} into {where} of type {_go_type(node)}")
        return
    if node.kind == STRUCT:
        for key, child_value in value.items():
            raw = node.fields.get(key)
            child_path = f"{path}.{key}" if path else key
            if raw is None:
                if not node.open:
                    unknown.append(child_path)
                continue
            _decode(
                child_value,
                objschema.schema.node(raw),
                objschema,
                child_path,
                node.go_name or struct,
                type_errors,
                unknown,
            )
    elif node.kind == MAP:
        element = child_node(objschema, node, "")
        for key, child_value in value.items():
            _decode(child_value, element, objschema, f"{path}[{key}]", struct, type_errors, unknown)
    elif node.kind == LIST:
        element = child_node(objschema, node, "")
        for index, child_value in enumerate(value):
            _decode(child_value, element, objschema, f"{path}[{index}]", struct, type_errors, unknown)


def _dotted(path: str) -> str:
    """Go's UnmarshalTypeError field path: map keys and list indices dropped."""
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def drop_nulls(value: Any) -> Any:
    """The object after a typed round trip: null fields of typed objects are zero values and vanish."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value
