"""Kyverno `validate.pattern`: walking a pattern over a resource with anchors (pkg/engine/validate).

Returns None when the resource matches, else a PatternError whose `skip` / `path` decide the rule status:
skip -> skip, empty path -> error, otherwise fail at that path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from evaluator.k8s.json_kinds import json_kind

from . import anchors as A
from . import pattern_value, wildcard
from .gofmt import sprint, sprint_int_aware
from .kept_errors import kept
from .memos import Memo, remembered_under


# Go's %T of a decoded JSON value, as Kyverno's messages print it
_GO_TYPE_NAMES = {
    "null": "<nil>",
    "bool": "bool",
    "int": "int64",
    "float": "float64",
    "string": "string",
    "map": "map[string]interface {}",
    "list": "[]interface {}",
}


def go_type(value: object) -> str:
    return _GO_TYPE_NAMES.get(json_kind(value)) or type(value).__name__


def _pattern_text(value: object) -> str:
    return sprint(value)


class _AnchorMap:
    def __init__(self) -> None:
        self.seen: dict[str, bool] = {}

    def keys_are_missing(self) -> bool:
        for k, v in self.seen.items():
            if not v and not A.is_kind(k, A.NEGATION):
                return True
        return False

    def check(self, recorded: list[tuple[str, A.Anchor]], resource: object) -> None:
        """`recorded`: the pattern map's keys with a condition, existence or negation anchor (`_layout`)."""
        for key, a in recorded:
            if self.seen.get(key):
                continue
            self.seen.setdefault(key, False)
            if _has_key(resource, a.key):
                self.seen[key] = True


def _has_key(resource: object, key: str) -> bool:
    if isinstance(resource, dict):
        return key in resource
    if isinstance(resource, list):
        return any(_has_key(v, key) for v in resource)
    return False


def match_pattern(resource: object, pattern: object) -> A.PatternError | None:
    """validate.MatchPattern."""
    ac = _AnchorMap()
    try:
        _node(pattern).check(resource, "/", ac)
    except A.PatternFailure as err:
        path = getattr(err, "_path", "")
        if A.is_conditional_error(err) or A.is_global_error(err):
            return A.PatternError(err, "", True)
        if A.is_negation_error(err):
            return A.PatternError(err, path, False)
        if ac.keys_are_missing():
            return A.PatternError(err, "", False)
        return A.PatternError(err, path, False)
    return None


def _fail(err: A.PatternFailure, path: str) -> A.PatternFailure:
    err._path = path  # type: ignore[attr-defined]
    return err


# --- a pattern compiled once: each map's anchors parsed and its keys ordered, each leaf's checks parsed ---
#
# Every resource a policy meets is walked against the same pattern, so what the pattern alone decides (which
# keys are anchors, in what order keys are visited, how a string pattern reads) is worked out once per map of
# a policy and kept with it (by identity: patterns are only read; a substituted pattern shares every map its
# variables left alone). The walk over a resource follows validate.validateResourceElement.


class _Node:
    """A pattern element; `check` raises PatternFailure (with `_path`) when `resource` does not match."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: object) -> None:
        self.pattern = pattern

    def check(self, resource: object, path: str, ac: _AnchorMap) -> None:
        raise _fail(A.PatternFailure(f"failed at '{path}', pattern contains unknown type"), path)


class _Leaf(_Node):
    """A scalar pattern: every value of a list resource, or the resource itself, must satisfy it."""

    __slots__ = ("satisfied",)

    def __init__(self, pattern: object) -> None:
        super().__init__(pattern)
        self.satisfied = pattern_value.checker(pattern)

    def check(self, resource: object, path: str, ac: _AnchorMap) -> None:
        satisfied = self.satisfied
        for value in resource if isinstance(resource, list) else (resource,):
            if not satisfied(value):
                raise _fail(
                    A.PatternFailure(
                        f"resource value '{sprint_int_aware(resource)}' does not match "
                        f"'{_pattern_text(self.pattern)}' at path {path}"
                    ),
                    path,
                )


class _List(_Node):
    """validateArray: a list of maps applies its first map to each element; a list of scalars its first
    scalar to the whole list; any other list pairs elements by position."""

    __slots__ = ("items",)

    def __init__(self, pattern: list) -> None:
        super().__init__(pattern)
        self.items = [_node(item) for item in pattern]

    def check(self, resource: object, path: str, ac: _AnchorMap) -> None:
        if not isinstance(resource, list):
            raise _fail(
                A.PatternFailure(
                    f"validation rule failed at path {path}, resource does not satisfy the expected overlay pattern"
                ),
                path,
            )
        items = self._items()
        if not items:
            raise _fail(A.PatternFailure("pattern Array empty"), path)
        first = items[0]
        if isinstance(first, _Map):
            _check_pairs(((element, first) for element in resource), path, ac)
        elif isinstance(first, _Leaf):
            first.check(resource, path, ac)
        else:
            if len(resource) < len(items):
                raise _fail(
                    A.PatternFailure(
                        f"validate Array failed, array length mismatch, resource Array len is {len(resource)} "
                        f"and pattern Array len is {len(items)}"
                    ),
                    "",
                )
            _check_pairs(zip(resource, items), path, ac)

    def _items(self) -> list[_Node]:
        """The elements' nodes, compiled again for an element replaced since (as each visit read it before)."""
        items, pattern = self.items, cast(list, self.pattern)
        if len(items) != len(pattern) or any(node.pattern is not item for node, item in zip(items, pattern)):
            items = self.items = [_node(item) for item in pattern]
        return items


# (pattern key, its handler: None for a plain key, the key the handler reads, the value's node)
_Entry = tuple[str, "Callable[[str, _Node, dict, str, _AnchorMap], None] | None", str, _Node]


class _Map(_Node):
    """A pattern map: its anchored entries in key order, then its plain ones in getSortedNestedAnchorResource
    order; the keys `_AnchorMap.check` records; whether wildcard metadata keys make it depend on the resource."""

    __slots__ = ("anchored", "plain", "recorded", "expands")

    def __init__(self, pattern: dict) -> None:
        super().__init__(pattern)
        anchor_keys, plain = _split_anchors(pattern)
        self.anchored = [_entry(key, pattern[key]) for key in sorted(anchor_keys)]
        self.plain = [_entry(key, pattern[key]) for key in _sorted_resource_keys(plain)]
        self.recorded = []
        for key in pattern:
            a = A.parse(key)
            if a is not None and a.modifier in (A.CONDITION, A.EXISTENCE, A.NEGATION):
                self.recorded.append((key, a))
        _, meta = _get_pattern_value("metadata", pattern)
        self.expands = isinstance(meta, dict) and any(
            _string_map(tag, meta)[1] is not None for tag in ("labels", "annotations")
        )

    def check(self, resource: object, path: str, ac: _AnchorMap) -> None:
        if not isinstance(resource, dict):
            raise _fail(
                A.PatternFailure(
                    f"pattern and resource have different structures. Path: {path}. "
                    f"Expected {go_type(self.pattern)}, found {go_type(resource)}"
                ),
                path,
            )
        ac.check(self.recorded, resource)
        node = self
        if self.expands:  # wildcard label and annotation keys, read as the resource's keys they match
            expanded = expand_in_metadata(self.pattern, resource)
            if expanded is not self.pattern:
                node = _Map(expanded)
        node._check_entries(resource, path, ac)

    def _check_entries(self, resource: dict, path: str, ac: _AnchorMap) -> None:
        skip_errors: list[A.PatternFailure] = []
        apply_count = 0
        pattern = self.pattern
        for entry in self.anchored:
            try:
                _check_entry(entry, pattern, resource, path, ac)
            except A.PatternFailure as err:
                if A.is_conditional_error(err) or A.is_global_error(err):
                    skip_errors.append(kept(err))
                    continue
                if not any(not isinstance(e, A.PatternError) for e in skip_errors):
                    raise
                continue
            apply_count += 1
        if skip_errors:
            direct = any(not isinstance(e, A.PatternError) for e in skip_errors)
            if apply_count == 0 or direct:
                raise _fail(A.PatternError(skip_errors, path, True), path)
        for entry in self.plain:
            _check_entry(entry, pattern, resource, path, ac)


def _entry(key: str, value: object) -> _Entry:
    """anchor.CreateElementHandler, chosen once: an anchor's handler, or None for a plain key (and for
    `+()` add-if-not-present, which validate treats literally)."""
    a = A.parse(key)
    handler = _ANCHOR_HANDLERS.get(a.modifier) if a else None
    return (key, handler, a.key if handler is not None and a is not None else key, _node(value))


def _check_entry(entry: _Entry, pattern: dict, resource: dict, path: str, ac: _AnchorMap) -> None:
    key, handler, anchor_key, node = entry
    value = pattern[key]
    if value is not node.pattern:  # replaced since it was compiled: read as it is now
        node = _node(value)
    if handler is not None:
        handler(anchor_key, node, resource, f"{path}{anchor_key}/", ac)
    elif node.pattern == "*":
        if resource.get(key) is None:
            raise _fail(A.PatternFailure(f"{path}/{key} not found"), path)
    else:
        node.check(resource.get(key), f"{path}{key}/", ac)


def _node(pattern: object) -> _Node:
    """The compiled form of a pattern element; a map's or list's is kept with it (by identity)."""
    if isinstance(pattern, dict):
        kind: type[_Node] = _Map
    elif isinstance(pattern, list):
        kind = _List
    elif pattern is None or isinstance(pattern, (str, int, float, bool)):
        return _Leaf(pattern)
    else:
        return _Node(pattern)
    # stamped with its length: a key or an element added or removed since is compiled again
    return remembered_under(id(pattern), pattern, kind, _nodes, stamp=len(pattern))


_nodes: Memo = {}


def _split_anchors(pattern: dict) -> tuple[dict, dict]:
    anchors, plain = {}, {}
    for key, value in pattern.items():
        if A.is_kind(key, A.CONDITION, A.EXISTENCE, A.EQUALITY, A.NEGATION):
            anchors[key] = value
        else:
            plain[key] = value
    return anchors, plain


def _has_nested_anchors(pattern: object) -> bool:
    if isinstance(pattern, dict):
        if any(A.is_kind(k, A.CONDITION, A.EXISTENCE, A.EQUALITY, A.NEGATION, A.GLOBAL) for k in pattern):
            return True
        return any(_has_nested_anchors(v) for v in pattern.values())
    if isinstance(pattern, list):
        return any(_has_nested_anchors(v) for v in pattern)
    return False


def _sorted_resource_keys(plain: dict) -> list[str]:
    """getSortedNestedAnchorResource: keys holding anchors go first (pushed to the front in sorted order)."""
    front: list[str] = []
    back: list[str] = []
    for key in sorted(plain):
        if A.is_kind(key, A.GLOBAL) or _has_nested_anchors(plain[key]):
            front.insert(0, key)
        else:
            back.append(key)
    return front + back


def _check_pairs(pairs: Iterable[tuple[object, _Node]], path: str, ac: _AnchorMap) -> None:
    """Validate (resource, pattern) element pairs: a conditional or global anchor failure skips an element, and
    fails the array only when no element applied (Kyverno's applyCount)."""
    apply_count, skip_errors = 0, []
    for i, (element, node) in enumerate(pairs):
        try:
            node.check(element, f"{path}{i}/", ac)
        except A.PatternFailure as err:
            if A.is_conditional_error(err) or A.is_global_error(err):
                skip_errors.append(kept(err))
                continue
            raise
        apply_count += 1
    if apply_count == 0 and skip_errors:
        raise _fail(A.PatternError(skip_errors, path, True), path)


# --- anchor.CreateElementHandler: one handler per anchor, (key, value's node, resource, path of the key, ac) ---


def _negation(key: str, node: _Node, resource: dict, current: str, ac: _AnchorMap) -> None:
    """X(key): the key must not be there."""
    if key in resource:
        raise _fail(A.AnchorError(A.NEGATION_MSG, f"{current} is not allowed"), current)


def _equality(key: str, node: _Node, resource: dict, current: str, ac: _AnchorMap) -> None:
    """=(key): when the key is there, its value must match."""
    if key in resource:
        node.check(resource[key], current, ac)


def _check_under_anchor(kind: str, value: object, node: _Node, current: str, ac: _AnchorMap) -> None:
    """A mismatch under a conditional or global anchor is that anchor's error (which skips, not fails)."""
    try:
        node.check(value, current, ac)
    except A.PatternFailure as err:
        raise _fail(A.AnchorError(kind, str(err)), getattr(err, "_path", current))


def _condition(key: str, node: _Node, resource: dict, current: str, ac: _AnchorMap) -> None:
    """(key): the key must be there and match, else the element is skipped."""
    if key not in resource:
        raise _fail(A.AnchorError(A.CONDITIONAL_MSG, "conditional anchor key doesn't exist in the resource"), current)
    _check_under_anchor(A.CONDITIONAL_MSG, resource[key], node, current, ac)


def _global(key: str, node: _Node, resource: dict, current: str, ac: _AnchorMap) -> None:
    """<(key): when the key is there and does not match, the whole rule is skipped."""
    if key in resource:
        _check_under_anchor(A.GLOBAL_MSG, resource[key], node, current, ac)


def _existence(key: str, node: _Node, resource: dict, current: str, ac: _AnchorMap) -> None:
    """^(key): when the key is there, each pattern map must match at least one element of its list."""
    if key not in resource:
        return
    value = resource[key]
    pattern = node.pattern
    if not isinstance(value, list):
        raise _fail(
            A.PatternFailure(
                f"invalid resource type {go_type(value)}: Existence ^ () anchor can be used only on list/array "
                f"type resource"
            ),
            current,
        )
    if not isinstance(node, _List):
        raise _fail(
            A.PatternFailure(
                f"invalid pattern type {go_type(pattern)}: Pattern has to be of list to compare against resource"
            ),
            current,
        )
    for item in node._items():
        if not isinstance(item, _Map):
            raise _fail(
                A.PatternFailure(
                    f"invalid pattern type {go_type(pattern)}: Pattern has to be of type map to compare against "
                    f"items in resource"
                ),
                current,
            )
        if not _any_element_matches(value, item, current, ac):
            raise _fail(A.PatternFailure(f"existence anchor validation failed at path {current}"), current)


_ANCHOR_HANDLERS = {
    A.NEGATION: _negation,
    A.EQUALITY: _equality,
    A.CONDITION: _condition,
    A.GLOBAL: _global,
    A.EXISTENCE: _existence,
}


def _any_element_matches(items: list, node: _Map, path: str, ac: _AnchorMap) -> bool:
    for i, element in enumerate(items):
        try:
            node.check(element, f"{path}{i}/", ac)
            return True
        except A.PatternFailure:
            continue
    return False


# --- wildcards in metadata keys (pkg/engine/wildcards.ExpandInMetadata) ---


def _get_pattern_value(tag: str, pattern: dict) -> tuple[str, object]:
    for k, v in pattern.items():
        if k == tag:
            return k, v
        a = A.parse(k)
        if a is not None and a.key == tag:
            return k, v
    return "", None


def _string_map(tag: str, data: object) -> tuple[str, dict | None]:
    if not isinstance(data, dict):
        return "", None
    key, val = _get_pattern_value(tag, data)
    if not isinstance(val, dict):
        return "", None
    return key, {k: v for k, v in val.items() if isinstance(v, str)}


def _expand_key(k: str, resource_data: dict) -> str:
    for rk in resource_data:
        if wildcard.match(k, rk):
            return rk
    return k


def expand_in_metadata(pattern: dict, resource: dict) -> dict:
    _, meta = _get_pattern_value("metadata", pattern)
    if not isinstance(meta, dict) or resource.get("metadata") is None:
        return pattern
    new_meta = dict(meta)
    changed = False
    for tag in ("labels", "annotations"):
        pkey, pdata = _string_map(tag, meta)
        if pdata is None:
            continue
        _, rdata = _string_map(tag, resource["metadata"])
        if rdata is None:
            continue
        result = {}
        for k, v in pdata.items():
            if wildcard.contains_wildcard(k):
                a = A.parse(k)
                if a is not None:
                    result[str(A.Anchor(a.modifier, _expand_key(a.key, rdata)))] = v
                else:
                    result[_expand_key(k, rdata)] = v
            else:
                result[k] = v
        new_meta[pkey] = result
        changed = True
    if not changed:
        return pattern
    mkey, _ = _get_pattern_value("metadata", pattern)
    out = dict(pattern)
    out[mkey] = new_meta
    return out
