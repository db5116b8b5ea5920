"""What the API server's typed round trips do to a patched object, as far as a patch can observe it.

- `check_type_names`: `Object.spec{selector: Object.spec.wrong{}}` is rejected before anything is
  applied (dynamic.ObjectVal.CheckTypeNamesMatchFieldPathNames).
- `to_json_value`: a CEL value as the JSON the patch carries (ObjectVal -> map, lists, scalars).
- `materialize_parents`: the JSON Patch is applied to the *encoded Go object*, where struct fields are
  always present (`"template": {"spec": {...}}`), so `add /spec/template/spec/hostNetwork` works on a
  request without `spec.template`. The OpenAPI definitions do not say which struct fields are Go
  pointers, so every absent struct-typed parent on the path is created; this accepts a few paths into
  absent pointer structs (e.g. `securityContext`) that the server refuses with "doc is missing path".
- the patched JSON is then decoded strictly into the Go type (`evaluator.admission.go_decode`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.policies.mutating.jsonpatch import unescape
from evaluator.k8s.object_schema import STRUCT, ObjectSchema, child_node


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


def drop_nulls(value: Any) -> Any:
    """The object after a typed round trip: null fields of typed objects are zero values and vanish."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value
