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

from evaluator.k8s.object_schema import (
    child_node,
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
    check = _VALIDATORS.get(node.kind)
    return check(value, node, objschema, path) if check is not None else []


def _validate_object(value: Any, node: Node, objschema: ObjectSchema, path: str) -> list[str]:
    """A struct's declared fields (others refused unless it is open) or a map's values."""
    if not isinstance(value, Mapping):
        return [f"{path or '.'}: expected map, got {_describe(value)}"]
    errors: list[str] = []
    for key, child in value.items():
        child_path = f"{path}.{key}"
        if node.kind == STRUCT and key not in node.fields:
            if not node.open:
                errors.append(f"{child_path}: field not declared in schema")
            continue
        errors.extend(validate(child, child_node(objschema, node, key), objschema, child_path))
    return errors


def _validate_list(value: Any, node: Node, objschema: ObjectSchema, path: str) -> list[str]:
    """Items against the element schema; set and map lists refuse duplicate keys (map lists non-objects)."""
    if not isinstance(value, list):
        return [f"{path or '.'}: expected list, got {_describe(value)}"]
    element = child_node(objschema, node, "")
    errors: list[str] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        key = _path_element(node, item, index)
        if node.list_type != ATOMIC:
            if node.list_type == ASSOCIATIVE and not isinstance(item, Mapping):
                errors.append(f"{path}[{index}]: expected map, got {_describe(item)}")
                continue
            if key in seen:
                errors.append(f"{path}: duplicate entries for key {key}")
            seen.add(key)
        errors.extend(validate(item, element, objschema, f"{path}{key}"))
    return errors


_SCALAR_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}
_SCALAR_WANTED = {"integer": "numeric (int or float)", "number": "numeric (int or float)"}


def _validate_scalar(value: Any, node: Node, objschema: ObjectSchema, path: str) -> list[str]:
    """The scalar's JSON type (a bool is no number; an integral float is an integer)."""
    scalar = node.scalar or ""
    ok = isinstance(value, _SCALAR_TYPES.get(scalar, (str, int, float))) and (
        scalar == "boolean" or not isinstance(value, bool)
    )
    if scalar == "integer" and isinstance(value, float) and value.is_integer():
        ok = True
    if ok:
        return []
    return [f"{path or '.'}: expected {_SCALAR_WANTED.get(scalar, node.scalar or 'string')}, got {_describe(value)}"]


_VALIDATORS = {STRUCT: _validate_object, MAP: _validate_object, LIST: _validate_list, SCALAR: _validate_scalar}


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
    return _ListMerge(live, patch, node, objschema, path).run()


class _ListMerge:
    """The walk over a live and a patch list, both named item by item by their SMD path elements: two
    cursors, the next item the two lists share, and the items merged so far."""

    def __init__(self, live: list, patch: list, node: Node, objschema: ObjectSchema, path: str):
        self.live, self.objschema, self.path = live, objschema, path
        self.element = child_node(objschema, node, "")
        defaults = key_defaults(objschema, node) if node.list_type == ASSOCIATIVE else {}
        self.lhs = [_path_element(node, item, i, defaults) for i, item in enumerate(live)]
        self.rhs = [_path_element(node, item, i, defaults) for i, item in enumerate(patch)]
        self.rhs_items: dict[str, Any] = {}
        for pe, item in zip(self.rhs, patch):
            if pe in self.rhs_items:
                raise ApplyError(f"{path}: duplicate entries for key {pe}")
            self.rhs_items[pe] = item
        counts: dict[str, int] = {}
        for pe in self.lhs:
            counts[pe] = counts.get(pe, 0) + 1
        # Duplicated live keys are "observed" without a value: merging them takes the patch item alone.
        self.lhs_items = {pe: item for pe, item in zip(self.lhs, live) if counts[pe] == 1}
        self.shared = [pe for pe in self.rhs if pe in counts]
        self.next_shared = self.shared.pop(0) if self.shared else None
        self.merged: set[str] = set()
        self.out: list = []
        self.li = self.ri = 0

    def run(self) -> list:
        while self.li < len(self.lhs) or self.ri < len(self.rhs):
            if not (self._aligned() or self._live_only()):
                self._from_patch()
        return self.out

    def _emit(self, pe: str) -> None:
        self.merged.add(pe)
        item = _merge(self.lhs_items.get(pe), self.rhs_items[pe], self.element, self.objschema, f"{self.path}{pe}")
        self.out.append(item)

    def _advance_shared(self) -> None:
        self.next_shared = self.shared.pop(0) if self.shared else None

    def _aligned(self) -> bool:
        """Both lists at the same item: merged. A live item the patch names later, while another shared
        item comes first, is passed over (the patch places it)."""
        if self.li >= len(self.lhs) or self.ri >= len(self.rhs):
            return False
        pe = self.lhs[self.li]
        if pe == self.rhs[self.ri]:
            self._emit(pe)
            self.li += 1
            self.ri += 1
            self._advance_shared()
            return True
        if pe in self.rhs_items and self.next_shared is not None and self.next_shared != pe:
            self.li += 1
            return True
        return False

    def _live_only(self) -> bool:
        """A live item the patch does not name is kept; one already merged is passed over."""
        if self.li >= len(self.lhs):
            return False
        pe = self.lhs[self.li]
        if pe not in self.rhs_items:
            self.out.append(self.live[self.li])
            self.li += 1
            return True
        if pe in self.merged:
            self.li += 1
            return True
        return False

    def _from_patch(self) -> None:
        """The patch's next item, merged with its live counterpart."""
        if self.ri < len(self.rhs):
            pe = self.rhs[self.ri]
            self._emit(pe)
            self.ri += 1
            if self.next_shared is not None and self.next_shared == pe:
                self._advance_shared()
