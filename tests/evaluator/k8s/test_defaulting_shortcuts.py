"""Defaulting's shortcuts (the usual case set at once, the registry looked up by exact text, the copy made with
`clone`) give exactly what the general walk gives: same object, same key order and types, same recorded paths.

The reference is tests/evaluator/defaulting_digests.json, made from the corpus in defaulting_corpus.py (every
defaulted kind, and each object with every field in turn made null, absent, "", 0, a string, a number, a list
or an object); the Hypothesis properties compare both ways, `shortcuts.off()` giving the general one, on
random objects of every registered kind.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import shortcuts
from evaluator.k8s.defaulting import (
    default_in_place,
    default_object,
    defaults_known_for,
    redefault,
    registered_kinds,
)
from evaluator.k8s.defaulting.fields import POINTER, STRING, Defaults, Field, Recorder, clone, clone_dict
from evaluator.k8s.defaulting.requests import default_request
from tests.evaluator.defaulting_corpus import base_objects, digests, variants

DIGESTS = Path(__file__).parents[1] / "defaulting_digests.json"


def _default(obj: Any) -> tuple[Any, tuple[str, ...]]:
    result = default_object(obj)
    return result.object, result.paths


def _containers(value: Any, found: dict[int, Any] | None = None) -> dict[int, Any]:
    """{id: container} of every dict and list inside `value` (itself included)."""
    found = {} if found is None else found
    if isinstance(value, (dict, list)):
        found[id(value)] = value
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down and the same key order (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


# -- the corpus -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fast", [True, False], ids=["shortcuts", "general"])
def test_every_corpus_variant_is_defaulted_as_recorded(fast: bool) -> None:
    if fast:
        assert digests(_default) == json.loads(DIGESTS.read_text())
    else:
        with shortcuts.off():
            assert digests(_default) == json.loads(DIGESTS.read_text())


def test_the_corpus_has_every_registered_kind() -> None:
    assert {(o["apiVersion"], o["kind"]) for o in base_objects().values()} >= set(registered_kinds())


def test_a_defaulted_copy_is_a_deep_copy_defaulted_in_place_and_shares_nothing() -> None:
    for case, name, obj in variants():
        pristine = copy.deepcopy(obj)
        expected = copy.deepcopy(obj)
        paths = default_in_place(expected)
        result, recorded = _default(obj)
        second, _ = _default(obj)
        assert recorded == tuple(paths), (case, name)
        assert _same(result, expected), (case, name)
        assert (result is obj) == (not paths), (case, name)
        assert _same(obj, pristine), (case, name)
        if paths:  # a defaulted object is a copy: nothing in it is the input's or another result's
            inside = _containers(result).keys()
            assert inside.isdisjoint(_containers(obj)) and inside.isdisjoint(_containers(second)), (case, name)


# -- entry points -----------------------------------------------------------------------------------------
def test_default_request_defaults_both_sides_as_default_object_does() -> None:
    objects = base_objects()
    request = {"operation": "UPDATE", "object": objects["deployment"], "oldObject": objects["statefulset"], "x": 1}
    pristine = copy.deepcopy(request)
    result, paths = default_request(request)
    assert request == pristine
    for side in ("object", "oldObject"):
        expected = default_object(request[side])
        assert _same(result[side], expected.object) and paths[side] == list(expected.paths)
    assert result["x"] == 1
    unchanged = {"operation": "DELETE", "oldObject": objects["configmap"]}
    assert default_request(unchanged) == (unchanged, {"object": [], "oldObject": []})
    assert default_request(unchanged)[0] is unchanged


def test_default_in_place_and_redefault_change_the_object_itself() -> None:
    obj = copy.deepcopy(base_objects()["deployment"])
    template_spec = obj["spec"]["template"]["spec"]
    paths = default_in_place(obj)
    assert "spec.template.spec.dnsPolicy" in paths and template_spec["dnsPolicy"] == "ClusterFirst"
    again = copy.deepcopy(base_objects()["cronjob"])
    assert redefault(again) is again and again["spec"]["concurrencyPolicy"] == "Allow"


def test_a_container_shared_inside_the_input_is_defaulted_in_each_place() -> None:
    shared = {"name": "c", "image": "nginx"}
    obj = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [shared], "initContainers": [shared]}}
    expected = copy.deepcopy(obj)  # keeps the sharing: defaulting the first place would hide the second
    expected["spec"]["initContainers"] = [copy.deepcopy(shared)]
    paths = default_in_place(expected)
    result, recorded = _default(obj)
    assert recorded == tuple(paths) and _same(result, expected)
    assert "spec.initContainers[0].imagePullPolicy" in recorded and "spec.containers[0].imagePullPolicy" in recorded
    assert shared == {"name": "c", "image": "nginx"}


# -- the registry lookup ----------------------------------------------------------------------------------
class _Text(str):
    pass


def _spellings(api_version: str) -> list[Any]:
    group, _, version = api_version.rpartition("/")
    return [api_version, f"/{version}", _Text(api_version), _Text(version), f"{group}/v0", ["v1"], None]


@pytest.mark.parametrize("api_version, kind", registered_kinds())
def test_the_registry_finds_each_spelling_as_the_lookup_by_group_does(api_version: str, kind: str) -> None:
    for spelling in _spellings(api_version):
        for name in (kind, _Text(kind), "Unknown"):
            obj = {"apiVersion": spelling, "kind": name, "spec": {}}
            fast = (defaults_known_for(obj), _default(copy.deepcopy(obj)))
            with shortcuts.off():
                general = (defaults_known_for(obj), _default(copy.deepcopy(obj)))
            assert fast[0] == general[0] and _same(fast[1], general[1]), (spelling, name)
    assert defaults_known_for({"apiVersion": api_version, "kind": kind})


def test_an_empty_group_is_the_core_group_and_a_non_text_version_is_nothing() -> None:
    assert defaults_known_for({"apiVersion": "/v1", "kind": "Pod"})
    assert not defaults_known_for({"apiVersion": ["v1"], "kind": "Pod"})
    assert not defaults_known_for(["v1", "Pod"])


# -- the primitives -----------------------------------------------------------------------------------------
def test_a_table_set_at_once_is_recorded_and_ordered_as_field_by_field() -> None:
    made = Field("made", None, POINTER, make=lambda source: {"from": source}, source="source")
    table = Defaults(Field("a", 1, POINTER), Field("b", "x", STRING), Field("fresh", {}, POINTER), made)
    for present in ({}, {"b": None}, {"b": ""}, {"a": 0}, {"z": 1}, {"source": 2}, {"made": None, "a": 3}):
        results = []
        for fast in (True, False):
            parent, rec = copy.deepcopy(present), Recorder()
            if fast:
                table.apply(parent, "p.", rec)
            else:
                with shortcuts.off():
                    table.apply(parent, "p.", rec)
            results.append((list(parent.items()), rec.paths))
        assert results[0] == results[1], present


def test_clone_copies_dict_subclasses_into_dicts_and_keeps_other_values() -> None:
    class Tagged(dict):
        pass

    data = {"a": Tagged(b=[Tagged(c=1), (Tagged(d=2),)]), "e": [[{"f": None}]]}
    for copied in (clone(data), clone_dict(data), clone(Tagged(data))):
        assert _same(copied, {"a": {"b": [{"c": 1}, (Tagged(d=2),)]}, "e": [[{"f": None}]]})
        assert copied["a"]["b"][1] is data["a"]["b"][1]  # a tuple is kept as it is
        assert not (_containers(copied).keys() & _containers(data).keys())


# -- properties: the shortcuts against the general walk -------------------------------------------------
def _shape_of(value: Any, key: str, shape: dict[str, set[str]], lists: set[str]) -> None:
    """Under each key, the keys seen in the object (or the list of objects) it holds."""
    if isinstance(value, list):
        lists.add(key)
        for item in value:
            _shape_of(item, key, shape, lists)
    elif isinstance(value, dict):
        shape.setdefault(key, set()).update(value)
        for child_key, item in value.items():
            _shape_of(item, child_key, shape, lists)


Shape = tuple[dict[str, list[str]], set[str]]


def _vocabulary() -> tuple[dict[tuple[str, str], Shape], list[str], list[str]]:
    """Each kind's shape (the keys under each key, and the keys that hold lists) in the corpus objects and
    their defaulted forms, and all their keys and texts: random objects built from them reach the fields
    defaulting reads and sets, at their depth."""
    shapes: dict[tuple[str, str], tuple[dict[str, set[str]], set[str]]] = {}
    texts: set[str] = set()
    for obj in base_objects().values():
        defaulted = default_object(obj).object
        shape, lists = shapes.setdefault((obj["apiVersion"], obj["kind"]), ({}, set()))
        _shape_of(obj, "", shape, lists)
        _shape_of(defaulted, "", shape, lists)
        shape[""] -= {"apiVersion", "kind"}
        texts.update(v for v in json.dumps(defaulted).split('"') if v.isidentifier())
    texts.update(["latest", "nginx:latest", "app@sha256:" + "a" * 64])
    keys = {key for shape, _ in shapes.values() for children in shape.values() for key in children}
    by_kind = {kind: ({key: sorted(c) for key, c in shape.items()}, lists) for kind, (shape, lists) in shapes.items()}
    return by_kind, sorted(keys), sorted(texts)


SHAPES, KEYS, TEXTS = _vocabulary()
_SCALAR = st.one_of(
    st.none(),
    st.just(""),
    st.just(0),
    st.booleans(),
    st.integers(-3, 100),
    st.sampled_from(TEXTS),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
    max_leaves=25,
)
_LEAF = st.one_of(_SCALAR, st.lists(_SCALAR, max_size=2), st.dictionaries(st.sampled_from(KEYS), _SCALAR, max_size=2))
_EDITS = st.lists(
    st.tuples(st.integers(0, 10_000), st.sampled_from(["absent", "replace"]), _JSON), min_size=1, max_size=4
)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found: list[tuple] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found.append((*path, key))
        found.extend(_paths(item, (*path, key)))
    return found


def _edited(obj: dict, edits: list[tuple[int, str, Any]]) -> dict:
    """`obj` with each edit applied at one of its paths (chosen by the number): the field removed or replaced."""
    out = copy.deepcopy(obj)
    for number, how, value in edits:
        paths = [p for p in _paths(out) if p not in (("apiVersion",), ("kind",))]
        if not paths:
            break
        *parents, last = paths[number % len(paths)]
        parent = out
        for step in parents:
            parent = parent[step]
        if how == "absent":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(value)
    return out


def _both_ways_agree(obj: Any) -> None:
    pristine = copy.deepcopy(obj)
    fast = _default(obj)
    with shortcuts.off():
        general = _default(obj)
    assert _same(fast, general)
    assert _same(obj, pristine)
    request = {"operation": "UPDATE", "object": obj, "oldObject": obj}
    fast_request = default_request(request)
    with shortcuts.off():
        general_request = default_request(request)
    assert _same(fast_request, general_request)


_CASES_BY_KIND: dict[tuple[str, str], list[dict]] = {}
for _obj in base_objects().values():
    _CASES_BY_KIND.setdefault((_obj["apiVersion"], _obj["kind"]), []).append(_obj)


@pytest.mark.parametrize("api_version, kind", registered_kinds())
@settings(max_examples=40)
@given(data=st.data())
def test_shortcuts_and_general_walk_agree_on_edited_objects(api_version: str, kind: str, data: st.DataObject) -> None:
    """A corpus object of the kind with a few fields, at any depth, removed or made null, zero or of any type."""
    base = data.draw(st.sampled_from(_CASES_BY_KIND[(api_version, kind)]))
    _both_ways_agree(_edited(base, data.draw(_EDITS)))


def _shaped(draw: Any, shape: Shape, key: str, depth: int = 0) -> Any:
    """A random value under `key`: mostly an object of some of the keys seen under it (a list of them where a
    list was seen), sometimes any value (null, a zero, a wrong type). Keys that hold objects are usually
    there (to reach the deep fields), leaves usually not (to reach the all-absent shortcuts)."""
    structure, lists = shape
    children = structure.get(key)
    if not children or depth > 8 or draw(st.integers(0, 5)) == 0:
        return draw(_LEAF)

    def present(child: str) -> bool:
        return draw(st.integers(0, 5)) > 0 if child in structure else draw(st.integers(0, 2)) == 0

    def one() -> dict:
        return {child: _shaped(draw, shape, child, depth + 1) for child in children if present(child)}

    return [one() for _ in range(draw(st.integers(0, 2)))] if key in lists else one()


@pytest.mark.parametrize("api_version, kind", registered_kinds())
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])  # a few hundred small draws each
@given(data=st.data())
def test_shortcuts_and_general_walk_agree_on_random_objects(api_version: str, kind: str, data: st.DataObject) -> None:
    """An object of the kind made of random fields, nested as the kinds nest them, of the texts defaulting knows."""
    body = _shaped(data.draw, SHAPES[(api_version, kind)], "")
    _both_ways_agree({"apiVersion": api_version, "kind": kind, **body} if type(body) is dict else body)
