"""Reading a CRD's OpenAPI v3 schema node the way the structural schema does (`schema.Structural`).

Each accessor tolerates malformed input (a user's CRD may hold anything) and answers as if the field
were unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EMPTY: Mapping[str, Any] = {}
_STRING = {"type": "string"}


def node(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else EMPTY


def type_of(schema: Mapping[str, Any]) -> str:
    value = schema.get("type")
    return value if isinstance(value, str) else ""


def items(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    value = schema.get("items")
    return value if isinstance(value, Mapping) else None


def properties(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    value = schema.get("properties")
    return value if isinstance(value, Mapping) else None


def additional_properties(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    value = schema.get("additionalProperties")
    return value if isinstance(value, Mapping) else None


def rules(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    value = schema.get("x-kubernetes-validations")
    if not isinstance(value, list):
        return []
    return [r if isinstance(r, Mapping) else EMPTY for r in value]


def flag(schema: Mapping[str, Any], name: str) -> bool:
    return schema.get(name) is True


def is_int_or_string(schema: Mapping[str, Any]) -> bool:
    return flag(schema, "x-kubernetes-int-or-string")


def is_embedded(schema: Mapping[str, Any]) -> bool:
    return flag(schema, "x-kubernetes-embedded-resource")


def nullable(schema: Mapping[str, Any]) -> bool:
    return flag(schema, "nullable")


def list_type(schema: Mapping[str, Any]) -> str | None:
    value = schema.get("x-kubernetes-list-type")
    return value if isinstance(value, str) else None


def list_map_keys(schema: Mapping[str, Any]) -> list[str]:
    value = schema.get("x-kubernetes-list-map-keys")
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def map_type(schema: Mapping[str, Any]) -> str | None:
    value = schema.get("x-kubernetes-map-type")
    return value if isinstance(value, str) else None


def with_type_and_object_meta(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """model.WithTypeAndObjectMeta: a resource root always exposes kind, apiVersion and metadata.name/generateName.

    metadata's two names are capped at 253 and 252 characters (a name is a DNS subdomain).
    """
    props = properties(schema) or EMPTY
    meta = node(props.get("metadata"))
    meta_props = properties(meta)
    if (
        props
        and type_of(node(props.get("kind"))) == "string"
        and type_of(node(props.get("apiVersion"))) == "string"
        and type_of(meta) == "object"
        and meta_props is not None
        and type_of(node(meta_props.get("name"))) == "string"
        and type_of(node(meta_props.get("generateName"))) == "string"
    ):
        return schema
    result = dict(schema)
    new_props = dict(props)
    new_props["kind"] = _STRING
    new_props["apiVersion"] = _STRING
    meta_props = meta_props or EMPTY
    new_props["metadata"] = {
        "type": "object",
        "properties": {
            "name": _capped(node(meta_props.get("name")), 253),
            "generateName": _capped(node(meta_props.get("generateName")), 252),
        },
    }
    result["properties"] = new_props
    return result


def _capped(existing: Mapping[str, Any], limit: int) -> Mapping[str, Any]:
    current = existing.get("maxLength")
    if isinstance(current, int) and not isinstance(current, bool) and current < limit:
        limit = current
    return {"type": "string", "maxLength": limit}
