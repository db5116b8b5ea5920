"""Kyverno `validate.pattern`: walking a pattern over a resource with anchors (pkg/engine/validate).

Returns None when the resource matches, else a PatternError whose `skip` / `path` decide the rule status:
skip -> skip, empty path -> error, otherwise fail at that path.
"""

from __future__ import annotations

from collections.abc import Iterable

from evaluator.k8s.json_kinds import json_kind

from . import anchors as A
from . import pattern_value, wildcard
from .gofmt import sprint, sprint_int_aware


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
        _validate_element(resource, pattern, "/", ac)
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


def _validate_element(resource: object, pattern: object, path: str, ac: _AnchorMap) -> None:
    """Raises PatternFailure (with `_path`) on mismatch."""
    if isinstance(pattern, dict):
        if not isinstance(resource, dict):
            raise _fail(
                A.PatternFailure(
                    f"pattern and resource have different structures. Path: {path}. "
                    f"Expected {go_type(pattern)}, found {go_type(resource)}"
                ),
                path,
            )
        layout = _layout(pattern)
        ac.check(layout[2], resource)
        _validate_map(resource, pattern, path, ac, layout)
        return
    if isinstance(pattern, list):
        if not isinstance(resource, list):
            raise _fail(
                A.PatternFailure(
                    f"validation rule failed at path {path}, resource does not satisfy the expected overlay pattern"
                ),
                path,
            )
        _validate_array(resource, pattern, path, ac)
        return
    if pattern is None or isinstance(pattern, (str, int, float, bool)):
        values = resource if isinstance(resource, list) else [resource]
        for value in values:
            if not pattern_value.validate(value, pattern):
                raise _fail(
                    A.PatternFailure(
                        f"resource value '{sprint_int_aware(resource)}' does not match '{_pattern_text(pattern)}' "
                        f"at path {path}"
                    ),
                    path,
                )
        return
    raise _fail(A.PatternFailure(f"failed at '{path}', pattern contains unknown type"), path)


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


_Layout = tuple[list[str], list[str], list[tuple[str, A.Anchor]], bool, int]


def _layout(pattern: dict) -> _Layout:
    """A pattern map's (anchored entries in key order, plain entries in `_sorted_resource_keys` order, the
    keys `_AnchorMap.check` records with their anchors, whether `expand_in_metadata` can change it), worked
    out once per map of a policy (kept with it, so that its id stays its own; patterns are only read)."""
    found = _layouts.get(id(pattern))
    if found is not None and found[0] is pattern and found[1][4] == len(pattern):
        return found[1]
    anchor_keys, plain = _split_anchors(pattern)
    recorded = []
    for key in pattern:
        a = A.parse(key)
        if a is not None and a.modifier in (A.CONDITION, A.EXISTENCE, A.NEGATION):
            recorded.append((key, a))
    _, meta = _get_pattern_value("metadata", pattern)
    expands = isinstance(meta, dict) and any(_string_map(tag, meta)[1] is not None for tag in ("labels", "annotations"))
    layout = (sorted(anchor_keys), _sorted_resource_keys(plain), recorded, expands, len(pattern))
    if len(_layouts) >= _LAYOUTS_SIZE:
        _layouts.clear()
    _layouts[id(pattern)] = (pattern, layout)
    return layout


_LAYOUTS_SIZE = 8192
_layouts: dict[int, tuple[dict, _Layout]] = {}


def _validate_map(resource: dict, pattern: dict, path: str, ac: _AnchorMap, layout: _Layout) -> None:
    if layout[3]:
        pattern = expand_in_metadata(pattern, resource)
        layout = _layout(pattern)
    anchored, plain, _, _, _ = layout
    skip_errors: list[A.PatternFailure] = []
    apply_count = 0
    for key in anchored:
        try:
            _handle(key, pattern[key], resource, path, ac)
        except A.PatternFailure as err:
            if A.is_conditional_error(err) or A.is_global_error(err):
                skip_errors.append(err)
                continue
            if not any(not isinstance(e, A.PatternError) for e in skip_errors):
                raise
            continue
        apply_count += 1
    if skip_errors:
        direct = any(not isinstance(e, A.PatternError) for e in skip_errors)
        if apply_count == 0 or direct:
            raise _fail(A.PatternError(skip_errors, path, True), path)
    for key in plain:
        _handle(key, pattern[key], resource, path, ac)


def _validate_array(resource: list, pattern: list, path: str, ac: _AnchorMap) -> None:
    if not pattern:
        raise _fail(A.PatternFailure("pattern Array empty"), path)
    first = pattern[0]
    if isinstance(first, dict):
        _validate_array_of_maps(resource, first, path, ac)
    elif first is None or isinstance(first, (str, int, float, bool)):
        _validate_element(resource, first, path, ac)
    else:
        if len(resource) < len(pattern):
            raise _fail(
                A.PatternFailure(
                    f"validate Array failed, array length mismatch, resource Array len is {len(resource)} "
                    f"and pattern Array len is {len(pattern)}"
                ),
                "",
            )
        _validate_pairs(zip(resource, pattern), path, ac)


def _validate_array_of_maps(resource: list, pattern: dict, path: str, ac: _AnchorMap) -> None:
    _validate_pairs(((element, pattern) for element in resource), path, ac)


def _validate_pairs(pairs: Iterable[tuple[object, object]], path: str, ac: _AnchorMap) -> None:
    """Validate (resource, pattern) element pairs: a conditional or global anchor failure skips an element, and
    fails the array only when no element applied (Kyverno's applyCount)."""
    apply_count, skip_errors = 0, []
    for i, (element, element_pattern) in enumerate(pairs):
        try:
            _validate_element(element, element_pattern, f"{path}{i}/", ac)
        except A.PatternFailure as err:
            if A.is_conditional_error(err) or A.is_global_error(err):
                skip_errors.append(err)
                continue
            raise
        apply_count += 1
    if apply_count == 0 and skip_errors:
        raise _fail(A.PatternError(skip_errors, path, True), path)


# --- anchor.CreateElementHandler: one handler per anchor, (key, pattern, resource, path of the key, ac) ---


def _negation(key: str, pattern: object, resource: dict, current: str, ac: _AnchorMap) -> None:
    """X(key): the key must not be there."""
    if key in resource:
        raise _fail(A.AnchorError(A.NEGATION_MSG, f"{current} is not allowed"), current)


def _equality(key: str, pattern: object, resource: dict, current: str, ac: _AnchorMap) -> None:
    """=(key): when the key is there, its value must match."""
    if key in resource:
        _validate_element(resource[key], pattern, current, ac)


def _validate_under_anchor(kind: str, value: object, pattern: object, current: str, ac: _AnchorMap) -> None:
    """A mismatch under a conditional or global anchor is that anchor's error (which skips, not fails)."""
    try:
        _validate_element(value, pattern, current, ac)
    except A.PatternFailure as err:
        raise _fail(A.AnchorError(kind, str(err)), getattr(err, "_path", current))


def _condition(key: str, pattern: object, resource: dict, current: str, ac: _AnchorMap) -> None:
    """(key): the key must be there and match, else the element is skipped."""
    if key not in resource:
        raise _fail(A.AnchorError(A.CONDITIONAL_MSG, "conditional anchor key doesn't exist in the resource"), current)
    _validate_under_anchor(A.CONDITIONAL_MSG, resource[key], pattern, current, ac)


def _global(key: str, pattern: object, resource: dict, current: str, ac: _AnchorMap) -> None:
    """<(key): when the key is there and does not match, the whole rule is skipped."""
    if key in resource:
        _validate_under_anchor(A.GLOBAL_MSG, resource[key], pattern, current, ac)


def _existence(key: str, pattern: object, resource: dict, current: str, ac: _AnchorMap) -> None:
    """^(key): when the key is there, each pattern map must match at least one element of its list."""
    if key not in resource:
        return
    value = resource[key]
    if not isinstance(value, list):
        raise _fail(
            A.PatternFailure(
                f"invalid resource type {go_type(value)}: Existence ^ () anchor can be used only on list/array "
                f"type resource"
            ),
            current,
        )
    if not isinstance(pattern, list):
        raise _fail(
            A.PatternFailure(
                f"invalid pattern type {go_type(pattern)}: Pattern has to be of list to compare against resource"
            ),
            current,
        )
    for item in pattern:
        if not isinstance(item, dict):
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


def _plain_key(key: str, pattern: object, resource: dict, path: str, ac: _AnchorMap) -> None:
    """The default handler: plain keys, and `+()` add-if-not-present, which validate treats literally."""
    if pattern == "*":
        if resource.get(key) is not None:
            return
        raise _fail(A.PatternFailure(f"{path}/{key} not found"), path)
    _validate_element(resource.get(key), pattern, f"{path}{key}/", ac)


def _handle(key: str, pattern: object, resource: dict, path: str, ac: _AnchorMap) -> None:
    """anchor.CreateElementHandler(...).Handle."""
    a = A.parse(key)
    handler = _ANCHOR_HANDLERS.get(a.modifier) if a else None
    if handler is None:
        _plain_key(key, pattern, resource, path, ac)
    else:
        handler(a.key, pattern, resource, f"{path}{a.key}/", ac)


def _any_element_matches(items: list, pattern: dict, path: str, ac: _AnchorMap) -> bool:
    for i, element in enumerate(items):
        try:
            _validate_element(element, pattern, f"{path}{i}/", ac)
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
