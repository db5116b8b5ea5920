"""The anchors of a `patchStrategicMerge` resolved against the resource before merging, as Kyverno's
strategicPreprocessing.go does it: add-if-not-present `+(key)` becomes `key` only when the resource lacks it,
conditional `(key)` and global `<(key)` anchors are checked (a failed global anchor drops the whole patch, a
failed conditional one the map or list element that holds it), list elements with anchors are copied once per
matching resource element (named after it), and what is left of the anchors is removed.

The pattern is changed in place, as the Go code changes its YAML node; where the Go code walks a list by a
stale index while deleting from it, so does this (the result depends on it).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from .. import anchors as A
from .. import validate_pattern
from ..kept_errors import kept

CONDITION, GLOBAL, ADD = A.CONDITION, A.GLOBAL, A.ADD_IF_NOT_PRESENT


class ConditionFailed(Exception):
    """A conditional anchor did not match (ConditionError): the element that holds it is not patched."""

    def __str__(self) -> str:
        return f"condition failed: {self.args[0]}"


class GlobalConditionFailed(Exception):
    """A global anchor did not match (GlobalConditionError): the rule applies no patch."""

    def __str__(self) -> str:
        return f"global condition failed: {self.args[0]}"


class PreprocessError(Exception):
    """The pattern cannot be walked against the resource (a wrong node kind)."""


def _modifier(key: str) -> str | None:
    a = A.parse(key) if isinstance(key, str) else None
    return None if a is None else a.modifier


def _is_condition_or_global(key: str) -> bool:
    return _modifier(key) in (CONDITION, GLOBAL)


def _has_anchor(modifier: str | None) -> bool:
    return modifier in (CONDITION, GLOBAL, ADD)


def _is_global(modifier: str | None) -> bool:
    return modifier == GLOBAL


def _rename(node: dict, old: str, new: str) -> None:
    """Rename a key where it stands (kyaml renames the key node, so the order is kept)."""
    items = [(new if k == old else k, v) for k, v in node.items()]
    node.clear()
    node.update(items)


def preprocess(pattern: Any, resource: Any) -> None:
    """PreProcessPattern: resolve the anchors of `pattern` (in place), then drop what remains of them.
    Raises ConditionFailed / GlobalConditionFailed / PreprocessError."""
    _recurse(pattern, resource)
    if isinstance(pattern, dict):
        for key in list(pattern):
            if _delete_anchors(pattern[key], _is_condition_or_global(key), False):
                del pattern[key]


def _recurse(pattern: Any, resource: Any) -> None:
    if isinstance(pattern, dict):
        _walk_map(pattern, resource)
    elif isinstance(pattern, list) and pattern and isinstance(pattern[0], dict):
        _walk_list_of_maps(pattern, resource)


def _field(resource: Any, key: str) -> tuple[bool, Any]:
    if isinstance(resource, dict) and key in resource:
        return True, resource[key]
    return False, None


def _walk_map(pattern: dict, resource: Any) -> None:
    add_if_not_present(pattern, resource)
    _validate_conditions(pattern, resource)
    for key in [k for k in pattern if not _has_anchor(_modifier(k))]:
        _, value = _field(resource, key)
        _recurse(pattern[key], value)


def add_if_not_present(pattern: Any, resource: Any) -> int:
    """`+(key)`: dropped when the resource has `key`, else renamed to `key`; how many there were."""
    if not isinstance(pattern, dict):
        return 0
    keys = [k for k in pattern if _modifier(k) == ADD]
    for key in keys:
        plain = A.parse(key).key  # type: ignore[union-attr]
        if _field(resource, plain)[0]:
            del pattern[key]
        else:
            _rename(pattern, key, plain)
    return len(keys)


def _validate_conditions(pattern: dict, resource: Any) -> None:
    try:
        _check_anchors(pattern, resource, GLOBAL)
    except (ConditionFailed, GlobalConditionFailed):
        raise
    except Exception as err:
        raise GlobalConditionFailed(str(err)) from None
    try:
        _check_anchors(pattern, resource, CONDITION)
    except (ConditionFailed, GlobalConditionFailed):
        raise
    except Exception as err:
        raise ConditionFailed(str(err)) from None


def _check_anchors(pattern: dict, resource: Any, modifier: str) -> None:
    for key in [k for k in pattern if _modifier(k) == modifier]:
        plain = A.parse(key).key  # type: ignore[union-attr]
        present, value = _field(resource, plain)
        if not present:
            raise ValueError(f'could not found "{plain}" key in the resource')
        if add_if_not_present(pattern[key], value) > 0:
            continue
        err = validate_pattern.match_pattern(_as_condition_value(value), _as_condition_value(pattern[key]))
        if err is not None:
            raise ValueError(str(err))


def _as_condition_value(value: Any) -> Any:
    """convertRNodeToInterface: a scalar is compared as its YAML text, anything else as JSON data."""
    if isinstance(value, (dict, list)):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return json.dumps(value)
    return str(value)


def _walk_list_of_maps(pattern: list, resource: Any) -> None:
    if resource is not None and not isinstance(resource, list):
        raise PreprocessError(f"wrong Node Kind for  expected: SequenceNode was MappingNode: value: {{{resource}}}")
    resource_elements = resource or []
    for element in list(pattern):
        if not _has_anchors(element, _has_anchor):
            continue
        has_global = _has_anchors(element, _is_global)
        any_global_passed = False
        last_global: GlobalConditionFailed | None = None
        element_copy = copy.deepcopy(element)  # one copy for every resource element, as in the Go code
        for resource_element in resource_elements:
            try:
                _recurse(element_copy, resource_element)
            except ConditionFailed:
                continue
            except GlobalConditionFailed as err:
                last_global = kept(err)
                continue
            if has_global:
                any_global_passed = True
            else:
                _named_copy(pattern, element_copy, resource_element)
        if resource is None:
            try:
                _recurse(element_copy, None)
            except ConditionFailed:
                continue
            if has_global:
                any_global_passed = True
        if not any_global_passed and last_global is not None:
            try:
                raise last_global
            finally:
                del last_global  # its traceback holds this frame: not the other way round too


def _named_copy(pattern: list, element: Any, resource_element: Any) -> None:
    """handlePatternName: the element without its anchors, named after a resource element it matched."""
    name = resource_element.get("name") if isinstance(resource_element, dict) else None
    if name is None or name == {} or name == []:
        return
    new = copy.deepcopy(element)
    if _delete_anchors(new, True, False):
        return
    if isinstance(new, dict):
        new["name"] = name
    pattern.append(new)


def _nil_or_empty(value: Any) -> bool:
    return value is None or value == {} or value == []


def _has_anchors(node: Any, wanted: Callable[[str | None], bool]) -> bool:
    if isinstance(node, dict):
        for key, value in node.items():
            if _modifier(key) is not None and wanted(_modifier(key)):
                return True
            if not _nil_or_empty(value) and _has_anchors(value, wanted):
                return True
        return False
    if isinstance(node, list):
        return any(_has_anchors(e, wanted) for e in node)
    return isinstance(node, str) and _is_condition_or_global(node)


def _delete_anchors(node: Any, delete_scalar: bool, traverse_maps: bool) -> bool:
    """Whether `node` is left with nothing but anchors (and so is to be deleted); strips them in place."""
    if isinstance(node, dict):
        return _delete_in_map(node, traverse_maps)
    if isinstance(node, list):
        return _delete_in_list(node, traverse_maps)
    return delete_scalar


def _delete_in_map(node: dict, traverse_maps: bool) -> bool:
    kept_anchor = False
    for key in [k for k in node if _is_condition_or_global(k)]:
        if _delete_anchors(node[key], True, traverse_maps):
            del node[key]
        else:
            kept_anchor = True
    if kept_anchor:
        for key in [k for k in node if _is_condition_or_global(k)]:
            _rename(node, key, A.parse(key).key)  # type: ignore[union-attr]
    need_delete = True
    for key in list(node):
        if _delete_anchors(node[key], False, traverse_maps):
            del node[key]
        else:
            need_delete = False
    return need_delete


def _delete_in_list(node: list, traverse_maps: bool) -> bool:
    elements = list(node)
    was_empty = not elements
    for i, element in enumerate(elements):
        if _has_anchors(element, _has_anchor):
            delete = True
            if traverse_maps and isinstance(element, dict):
                delete = _delete_anchors(element, True, traverse_maps)
        else:
            delete = _delete_anchors(element, False, traverse_maps)
        if delete and i < len(node):
            del node[i]  # the index of the list before any deletion, as deleteListElement uses it
    return not node and not was_empty
