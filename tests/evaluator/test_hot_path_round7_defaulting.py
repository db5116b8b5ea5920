"""Round 7 of the issue-22 hot path, defaulting: each shortcut gives what the longer way gives.

The reference is what defaulting gave before the round (tests/evaluator/defaulting_digests.json, made from the
corpus in defaulting_corpus.py: every defaulted kind, and each object with every field in turn made null, absent,
"", 0, a string, a number, a list or an object), and a plain deep copy defaulted in place.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any


from evaluator.k8s.defaulting import default_in_place, default_object, redefault
from evaluator.k8s.defaulting.requests import default_request
from tests.evaluator.defaulting_corpus import base_objects, digests, variants

DIGESTS = Path(__file__).with_name("defaulting_digests.json")


def _default(obj: dict) -> tuple[Any, tuple[str, ...]]:
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


def test_every_variant_is_defaulted_as_before_the_round() -> None:
    assert digests(_default) == json.loads(DIGESTS.read_text())


def test_defaulting_a_copy_is_a_deep_copy_defaulted_in_place() -> None:
    for case, name, obj in variants():
        expected = copy.deepcopy(obj)
        paths = default_in_place(expected)
        result, recorded = _default(obj)
        assert recorded == tuple(paths), (case, name)
        assert _same(result, expected), (case, name)
        assert (result is obj) == (not paths), (case, name)


def test_the_input_is_never_changed_and_results_share_no_container() -> None:
    for case, name, obj in variants():
        pristine = copy.deepcopy(obj)
        first, paths = _default(obj)
        second, _ = _default(obj)
        assert _same(obj, pristine), (case, name)
        if paths:  # a defaulted object is a copy: nothing in it is the input's or another result's
            inside = _containers(first).keys()
            assert inside.isdisjoint(_containers(obj)) and inside.isdisjoint(_containers(second)), (case, name)


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


def test_the_registry_lookup_by_exact_text_finds_what_the_lookup_by_group_finds() -> None:
    from evaluator.k8s.defaulting import _REGISTRY, _defaulter, _defaulter_by_group

    class Text(str):
        pass

    for (group, version), defaulters in _REGISTRY.items():
        for kind in [*defaulters, "Unknown"]:
            for api_version in (
                f"{group}/{version}" if group else version,
                f"/{version}",
                Text(version),
                f"{group}/v0",
            ):
                obj = {"apiVersion": api_version, "kind": kind}
                assert _defaulter(obj) is _defaulter_by_group(api_version, kind), (api_version, kind)
    assert _defaulter({"apiVersion": "/v1", "kind": "Pod"}) is not None  # as before: group "" from the split
    assert _defaulter({"apiVersion": ["v1"], "kind": "Pod"}) is None


def test_clone_dict_copies_dict_subclasses_into_dicts_as_clone_did() -> None:
    from evaluator.k8s.defaulting.fields import clone, clone_dict

    class Tagged(dict):
        pass

    data = {"a": Tagged(b=[Tagged(c=1), (Tagged(d=2),)]), "e": [[{"f": None}]]}
    for copied in (clone(data), clone_dict(data), clone(Tagged(data))):
        assert _same(copied, {"a": {"b": [{"c": 1}, (Tagged(d=2),)]}, "e": [[{"f": None}]]})
        assert copied["a"]["b"][1] is data["a"]["b"][1]  # a tuple is kept as it is
        assert not (_containers(copied).keys() & _containers(data).keys())


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


def test_the_usual_fields_set_at_once_are_recorded_and_ordered_as_one_by_one() -> None:
    from evaluator.k8s.defaulting.fields import Recorder, default_pointer, set_all_absent

    for present in ({}, {"b": None}, {"a": 0}, {"z": 1}):
        at_once, one_by_one = dict(present), dict(present)
        rec, rec2 = Recorder(), Recorder()
        if not set_all_absent(at_once, {"a": 1, "b": {}}, ("a", "b"), "p.", rec):
            default_pointer(at_once, "a", 1, "p.", rec)
            default_pointer(at_once, "b", {}, "p.", rec)
        default_pointer(one_by_one, "a", 1, "p.", rec2)
        default_pointer(one_by_one, "b", {}, "p.", rec2)
        assert list(at_once.items()) == list(one_by_one.items()) and rec.paths == rec2.paths


def test_the_corpus_has_every_kind_of_the_registry() -> None:
    from evaluator.k8s.defaulting import _BY_API_VERSION

    assert {(o["apiVersion"], o["kind"]) for o in base_objects().values()} >= set(_BY_API_VERSION)
