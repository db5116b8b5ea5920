"""Merge an ApplyConfiguration into an object as the API server's MAP patcher does (patch/smd.go).

The steps and their error texts follow `ApplyStructuredMergeDiff`:
1. the patch is converted to a typed value: fields the schema does not declare, or values of the wrong
   type, fail with `failed to convert patch object to typed object: .spec.x: field not declared in schema`;
2. the patch may not contain atomic lists, maps or structs (`validatePatch`): `invalid ApplyConfiguration:
   may not mutate atomic arrays, maps or structs: .spec.selector`;
3. live and patch are merged with structured-merge-diff rules: granular structs and maps merge key by key,
   scalars and atomics are replaced, `set` lists are unioned, `map` lists merge entry by entry on their
   keys, in SMD's order (shared items in the patch's order, new items after the live item they follow).
   Duplicate keys in a live list survive unless the patch touches that key, which collapses them.
Without a schema (a custom resource without a CRD) every list is atomic and every object granular.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from evaluator.policies.mutating.schema import (
    ANY,
    ASSOCIATIVE,
    ATOMIC,
    LIST,
    MAP,
    SCALAR,
    SET,
    STRUCT,
    Node,
    ObjectSchema,
)
from evaluator.policies.mutating.typed import child_node


class ApplyError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def apply_configuration(live: Mapping[str, Any], patch: Mapping[str, Any], objschema: ObjectSchema) -> dict:
    """The merged object; raises ApplyError with the server's wording (without the outer prefixes)."""
    root = objschema.root_node()
    errors = validate(patch, root, objschema) if objschema.known else []
    if errors:
        raise ApplyError("failed to convert patch object to typed object: " + "\n".join(errors))
    atomics = find_atomics(patch, root, objschema, "")
    if atomics:
        raise ApplyError(
            "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: " + ", ".join(atomics)
        )
    try:
        return _merge(live, patch, root, objschema, "")
    except ApplyError as exc:
        raise ApplyError(f"failed to merge patch: {exc.message}") from None


# -- validation (ObjectToTyped) -----------------------------------------------------------------------
def _describe(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def validate(value: Any, node: Node, objschema: ObjectSchema, path: str = "") -> list[str]:
    """structured-merge-diff validation errors of `value` against `node` (`<path>: <problem>`)."""
    if value is None or node.kind == ANY:
        return []
    where = path or "."
    if node.kind in (STRUCT, MAP):
        if not isinstance(value, Mapping):
            return [f"{where}: expected map, got {_describe(value)}"]
        errors: list[str] = []
        for key, child in value.items():
            child_path = f"{path}.{key}"
            if node.kind == STRUCT and key not in node.fields:
                if not node.open:
                    errors.append(f"{child_path}: field not declared in schema")
                continue
            errors.extend(validate(child, child_node(objschema, node, key), objschema, child_path))
        return errors
    if node.kind == LIST:
        if not isinstance(value, list):
            return [f"{where}: expected list, got {_describe(value)}"]
        element = child_node(objschema, node, "")
        errors = []
        seen: set[str] = set()
        for index, item in enumerate(value):
            key = _path_element(node, item, index)
            item_path = f"{path}{key}"
            if node.list_type != ATOMIC:
                if node.list_type == ASSOCIATIVE and not isinstance(item, Mapping):
                    errors.append(f"{path}[{index}]: expected map, got {_describe(item)}")
                    continue
                if key in seen:
                    errors.append(f"{path}: duplicate entries for key {key}")
                seen.add(key)
            errors.extend(validate(item, element, objschema, item_path))
        return errors
    if node.kind == SCALAR:
        expected = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}.get(
            node.scalar or "", (str, int, float)
        )
        ok = isinstance(value, expected) and (node.scalar == "boolean" or not isinstance(value, bool))
        if node.scalar == "integer" and isinstance(value, float) and value.is_integer():
            ok = True
        if not ok:
            wanted = {"integer": "numeric (int or float)", "number": "numeric (int or float)"}.get(
                node.scalar or "", node.scalar or "string"
            )
            return [f"{where}: expected {wanted}, got {_describe(value)}"]
    return []


# -- validatePatch ---------------------------------------------------------------------------------------
def find_atomics(value: Any, node: Node, objschema: ObjectSchema, path: str) -> list[str]:
    """Paths of the atomic lists, maps and structs the patch sets (smd.go findAtomics)."""
    atomics: list[str] = []
    if isinstance(value, Mapping) and node.kind in (STRUCT, MAP):
        if node.atomic:
            atomics.append(path)
        if node.kind == STRUCT:
            for key, child in value.items():
                if key in node.fields:
                    atomics.extend(find_atomics(child, child_node(objschema, node, key), objschema, f"{path}.{key}"))
    elif isinstance(value, list) and node.kind == LIST:
        if node.list_type == ATOMIC:
            atomics.append(path)
        element = child_node(objschema, node, "")
        for index, item in enumerate(value):
            atomics.extend(find_atomics(item, element, objschema, f"{path}[{index}]"))
    return atomics


# -- merge -----------------------------------------------------------------------------------------------
# Key fields with a default (ContainerPort.protocol) match items that omit them; the OpenAPI definitions
# state such defaults only in the field's description ("Defaults to \"TCP\".", "Default is TCP.").
_DEFAULT_IN_DESCRIPTION = re.compile(r'Defaults? (?:is|to) "?([A-Za-z0-9_-]+)"?')


def key_defaults(objschema: ObjectSchema, node: Node) -> dict[str, Any]:
    """The defaults of a map list's key fields, read from the item schema's field descriptions."""
    element = child_node(objschema, node, "")
    defaults = {}
    for key in node.keys:
        raw = element.fields.get(key) if element.kind == STRUCT else None
        match = _DEFAULT_IN_DESCRIPTION.search(str((raw or {}).get("description") or ""))
        if match:
            defaults[key] = match.group(1)
    return defaults


def _path_element(node: Node, item: Any, index: int, defaults: Mapping[str, Any] | None = None) -> str:
    """The SMD path element naming a list item: `[k="v",...]` for map lists, `[=value]` for sets."""
    if node.list_type == ASSOCIATIVE and isinstance(item, Mapping):
        defaults = defaults or {}
        parts = [f"{k}={_describe(item.get(k, defaults.get(k)))}" for k in node.keys if k in item or k in defaults]
        return "[" + ",".join(parts) + "]"
    if node.list_type == SET:
        return f"[={_describe(item)}]"
    return f"[{index}]"


def _merge(live: Any, patch: Any, node: Node, objschema: ObjectSchema, path: str) -> Any:
    if patch is None and live is not None:
        return None
    if live is None:
        return patch
    if node.kind in (STRUCT, MAP) or node.kind == ANY and isinstance(patch, Mapping) and isinstance(live, Mapping):
        if node.atomic or not isinstance(patch, Mapping) or not isinstance(live, Mapping):
            return patch
        out = dict(live)
        for key, value in patch.items():
            child = child_node(objschema, node, key) if node.kind != ANY else Node(ANY)
            out[key] = _merge(live.get(key), value, child, objschema, f"{path}.{key}") if key in live else value
        return out
    if node.kind == LIST and node.list_type in (SET, ASSOCIATIVE):
        if not isinstance(patch, list) or not isinstance(live, list):
            return patch
        return _merge_list(live, patch, node, objschema, path)
    return patch


def _merge_list(live: list, patch: list, node: Node, objschema: ObjectSchema, path: str) -> list:
    """mergingWalker.visitListItems: the patch's order for shared items, live-only items kept in place."""
    element = child_node(objschema, node, "")
    defaults = key_defaults(objschema, node) if node.list_type == ASSOCIATIVE else {}
    lhs = [_path_element(node, item, i, defaults) for i, item in enumerate(live)]
    rhs = [_path_element(node, item, i, defaults) for i, item in enumerate(patch)]
    rhs_items: dict[str, Any] = {}
    for pe, item in zip(rhs, patch):
        if pe in rhs_items:
            raise ApplyError(f"{path}: duplicate entries for key {pe}")
        rhs_items[pe] = item
    counts: dict[str, int] = {}
    for pe in lhs:
        counts[pe] = counts.get(pe, 0) + 1
    # Duplicated live keys are "observed" without a value: merging them takes the patch item alone.
    lhs_items = {pe: item for pe, item in zip(lhs, live) if counts[pe] == 1}
    shared = [pe for pe in rhs if pe in counts]
    next_shared = shared.pop(0) if shared else None
    merged: set[str] = set()
    out: list = []

    def merged_item(pe: str) -> Any:
        return _merge(lhs_items.get(pe), rhs_items[pe], element, objschema, f"{path}{pe}")

    li = ri = 0
    while li < len(lhs) or ri < len(rhs):
        if li < len(lhs) and ri < len(rhs):
            pe = lhs[li]
            if pe == rhs[ri]:
                merged.add(pe)
                out.append(merged_item(pe))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in rhs_items and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(lhs):
            pe = lhs[li]
            if pe not in rhs_items:
                out.append(live[li])
                li += 1
                continue
            if pe in merged:
                li += 1
                continue
        if ri < len(rhs):
            pe = rhs[ri]
            merged.add(pe)
            out.append(merged_item(pe))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out
