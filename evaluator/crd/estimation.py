"""Sizes the cost estimator assumes for schema values (apiserver `common.SchemaDeclType` MaxElements).

A string's size is its `maxLength` × 4 bytes (or an enum's longest value, or what fits in a 3 MiB
request); a list's is `maxItems`, or how many of its smallest items fit in a request; likewise maps and
`maxProperties`. `estimate_for_schema` returns the estimator `compile_rule` calls for each rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.cel.cost_estimate import estimate
from evaluator.cel.escaping import escape
from evaluator.crd import structural as st

MAX_REQUEST_BYTES = 3 * 1024 * 1024
_SIMPLE_MIN = {"boolean": 4, "number": 1, "integer": 1}
_FORMAT_MIN = {"duration": 3, "date": 12, "date-time": 21}  # the shortest value of each string format


@dataclass
class SizeNode:
    max_elements: int = 0
    min_size: int = 1
    fields: dict[str, SizeNode] = field(default_factory=dict)
    elem: SizeNode | None = None
    key: SizeNode | None = None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _max_string(schema: Mapping[str, Any]) -> int:
    if st.is_int_or_string(schema):
        return MAX_REQUEST_BYTES - 2
    fmt = schema.get("format")
    return {"duration": 32, "date": 12, "date-time": 32}.get(fmt, MAX_REQUEST_BYTES - 2)


def size_tree(schema: Any, is_resource_root: bool = False, depth: int = 0) -> SizeNode | None:
    if not isinstance(schema, Mapping) or depth > 64:
        return None
    if st.is_int_or_string(schema):
        max_length = _int(schema.get("maxLength"))
        return SizeNode(max(max_length, 0) * 4 if max_length is not None else _max_string(schema), 1)
    if is_resource_root:
        schema = st.with_type_and_object_meta(schema)
    kind = st.type_of(schema)
    if kind in _SIMPLE_MIN:
        return SizeNode(0, _SIMPLE_MIN[kind])
    size = _BY_TYPE.get(kind)
    return size(schema, depth) if size is not None else None


def _array_size(schema: Mapping[str, Any], depth: int) -> SizeNode | None:
    items = st.items(schema)
    return None if items is None else _collection_size(schema, items, "maxItems", 1, SizeNode(0, 1), depth)


def _object_size(schema: Mapping[str, Any], depth: int) -> SizeNode | None:
    extra = st.additional_properties(schema)
    if extra is not None:
        return _collection_size(schema, extra, "maxProperties", 6, SizeNode(0, 2), depth)
    node = SizeNode(0, 2)
    required = {r for r in (schema.get("required") or []) if isinstance(r, str)}
    min_size = 2
    for name, prop in (st.properties(schema) or {}).items():
        sub = size_tree(prop, st.is_embedded(st.node(prop)), depth + 1)
        if sub is None:
            continue
        escaped = escape(str(name))
        if escaped is not None:
            node.fields[escaped] = sub
        if name in required and st.node(prop).get("default") is None:
            min_size += len(str(name)) + sub.min_size + 4
    node.min_size = min_size
    return node


def _collection_size(
    schema: Mapping[str, Any], element: Mapping[str, Any], limit: str, overhead: int, key: SizeNode, depth: int
) -> SizeNode | None:
    """A list or a map: its declared limit, or how many of its smallest elements (each with `overhead` bytes
    of separators) fit in a request."""
    elem = size_tree(element, st.is_embedded(element), depth + 1)
    if elem is None:
        return None
    declared = _int(schema.get(limit))
    count = max(declared, 0) if declared is not None else (MAX_REQUEST_BYTES - 2) // (elem.min_size + overhead)
    return SizeNode(count, 2, elem=elem, key=key)


def _string_size(schema: Mapping[str, Any], depth: int) -> SizeNode | None:
    fmt = schema.get("format")
    max_length = _int(schema.get("maxLength"))
    if fmt == "byte":
        return SizeNode(max(max_length, 0) if max_length is not None else _max_string(schema), 2)
    if isinstance(fmt, str) and fmt in _FORMAT_MIN:
        return SizeNode(_max_string(schema), _FORMAT_MIN[fmt])
    if max_length is not None:
        return SizeNode(max(max_length, 0) * 4, 2)
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return SizeNode(max((len(v.encode()) for v in enum if isinstance(v, str)), default=0), 2)
    return SizeNode(_max_string(schema), 2)


_BY_TYPE: dict[str, Callable[[Mapping[str, Any], int], SizeNode | None]] = {
    "array": _array_size,
    "object": _object_size,
    "string": _string_size,
}


def sizer(root: SizeNode | None) -> Callable[[list[str]], tuple[int, int] | None]:
    def size_of(path: list[str]) -> tuple[int, int] | None:
        if not path or root is None:
            return None
        node = root
        for name in path[1:]:
            if name in ("@items", "@values"):
                node = node.elem
            elif name == "@keys":
                node = node.key
            else:
                node = node.fields.get(name)
            if node is None:
                return None
        return (0, node.max_elements)

    return size_of


def estimate_for_schema(schema: Mapping[str, Any], is_resource_root: bool) -> Callable:
    size_of = sizer(size_tree(schema, is_resource_root))

    def estimator(expression: str, env) -> int:
        return estimate(expression, env, size_of)[1]

    return estimator


def max_cardinality(min_size: int) -> int:
    return MAX_REQUEST_BYTES // (min_size + 1)
