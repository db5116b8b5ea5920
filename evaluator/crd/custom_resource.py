"""A custom resource validated as the API server validates it on create/update: OpenAPI value validation,
list-type set/map uniqueness, then every `x-kubernetes-validations` rule (transition rules on update).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evaluator.crd import structural as st
from evaluator.crd.fielderrors import FieldError
from evaluator.crd.openapi import validate_values


def list_type_errors(schema: Mapping[str, Any], data: Any, path: str, depth: int = 0) -> list[FieldError]:
    """validation.ValidateListSetsAndMaps: duplicate items of a set, duplicate keys of a map list."""
    errors: list[FieldError] = []
    if depth > 100 or not isinstance(schema, Mapping):
        return errors
    if isinstance(data, list):
        errors += _duplicates(schema, data, path)
        items = st.items(schema)
        if items is not None:
            for i, item in enumerate(data):
                errors += list_type_errors(items, item, f"{path}[{i}]", depth + 1)
    elif isinstance(data, dict):
        props = st.properties(schema) or {}
        extra = st.additional_properties(schema)
        for key, value in data.items():
            sub = props.get(key) if key in props else extra
            if sub is not None:
                errors += list_type_errors(st.node(sub), value, f"{path}.{key}" if path else key, depth + 1)
    return errors


def _duplicates(schema: Mapping[str, Any], data: list, path: str) -> list[FieldError]:
    kind = st.list_type(schema)
    if kind not in ("set", "map"):
        return []
    keys = st.list_map_keys(schema)
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        identity = _identity(kind, keys, item)
        if identity is None:
            continue
        if identity in seen:
            shown = item if kind == "set" else {k: item.get(k) for k in keys if k in item}
            errors.append(FieldError("FieldValueDuplicate", f"{path}[{i}]", "", shown))
        else:
            seen.add(identity)
    return errors


def _identity(kind: str | None, keys: list[str], item: Any) -> str | None:
    """What makes an item of a set or a map list the same as another (None: no identity, never a duplicate)."""
    if kind == "set":
        return json.dumps(item, sort_keys=True)
    if kind == "map" and isinstance(item, Mapping):
        return json.dumps([item.get(k) for k in keys], sort_keys=True)
    return None


def validate_custom_resource(
    schema: Mapping[str, Any],
    obj: Any,
    old_obj: Any = None,
    *,
    root_path: str | None = None,
    is_resource_root: bool = False,
    ratcheting: bool = False,
    trace: bool = False,
) -> dict:
    """OpenAPI errors first, then the CEL rules' errors (as the customresource strategy appends them)."""
    from evaluator.crd import validate

    schema = schema if isinstance(schema, Mapping) else {}
    errors = validate_values(schema, obj, root_path)
    errors += list_type_errors(schema, obj, root_path or "")
    cel = validate(
        schema, obj, old_obj, is_resource_root=is_resource_root, root_path=root_path, ratcheting=ratcheting, trace=trace
    )
    result = dict(cel)
    result["errors"] = [e.to_dict() for e in errors] + cel["errors"]
    return result
