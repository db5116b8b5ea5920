"""The request normaliser's shortcuts (a plain request of a kind seen before is filled from its `_Template`;
the REST mapping's answer for a kind is remembered) answer exactly as its general way, which
`shortcuts.off()` runs alone; and the deterministic uid is uuid5 of the request's sorted JSON, however written."""

from __future__ import annotations

import copy
import datetime as dt
import json
import uuid

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import shortcuts
from evaluator.admission.request import UID_NAMESPACE, normalize_request
from evaluator.k8s.restmapping import RESTMapper, builtin_mapper
from tests.evaluator.fast_path_fixtures import deployment


def _general(data, mapper: RESTMapper, copy_objects: bool = True):
    with shortcuts.off():
        return normalize_request(data, mapper, copy_objects=copy_objects)


def _namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def _requests() -> list:
    full = deployment(replicas=3)
    unnamed = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": {"a": "b"}}}
    no_namespace = copy.deepcopy(full)
    del no_namespace["metadata"]["namespace"]
    odd_metadata = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": 5, "namespace": ["x"]}}
    no_metadata = {"apiVersion": "v1", "kind": "ConfigMap"}
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "n"}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    non_text_keys = {**full, "data": {1: "one"}}
    big_number = {**full, "spec": {"replicas": 2**70}}
    return [
        {"operation": "CREATE", "object": full},
        {"object": full},
        full,
        {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {"object": full}},
        {"operation": "UPDATE", "object": full, "oldObject": no_namespace},
        {"object": full, "oldObject": no_namespace},
        {"operation": "DELETE", "oldObject": full},
        {"oldObject": full},
        {"operation": "DELETE", "object": full, "oldObject": no_namespace},
        {"operation": "DELETE", "object": no_namespace},
        {"operation": "CONNECT", "object": full},
        {"operation": "", "object": full},
        {"operation": None, "oldObject": full},
        {"operation": "BOGUS", "object": full},
        {"operation": ["CREATE"], "object": full},
        {"operation": "CREATE"},
        {},
        {"object": None, "oldObject": None},
        {"object": "text"},
        {"object": unnamed},
        {"object": no_namespace},
        {"object": odd_metadata},
        {"object": no_metadata},
        {"object": widget},
        {"object": role},
        {"object": _namespace("new")},
        {"operation": "UPDATE", "object": _namespace("old"), "oldObject": _namespace("old")},
        {"object": non_text_keys},
        {"object": big_number},
        {"object": {"apiVersion": 1, "kind": "Deployment"}},
        {"object": {"apiVersion": "apps/v1"}},
        {"object": {"apiVersion": "a/b/c", "kind": "X"}},
        {"object": full, "uid": "u"},
        {"operation": "CREATE", "object": full, "uid": "batch-7"},
        {"operation": "UPDATE", "object": full, "oldObject": no_namespace, "uid": "u"},
        {"object": full, "uid": ""},
        {"object": full, "uid": None},
        # not plain: the general way only
        {"object": full, "uid": 5},
        {"object": full, "uid": ["u"]},
        {"object": full, "name": "given"},
        {"object": full, "dryRun": True},
    ]


@pytest.mark.parametrize("copy_objects", [True, False])
@pytest.mark.parametrize("mapper", [builtin_mapper, lambda: RESTMapper.from_registry([])], ids=["builtin", "empty"])
def test_plain_requests_normalize_as_the_general_way_does(copy_objects, mapper):
    fast, slow = mapper(), mapper()
    for request in _requests() * 2:  # the second time through, plain requests take the template
        expected = _general(copy.deepcopy(request), slow, copy_objects)
        given_ = copy.deepcopy(request)
        answer = normalize_request(given_, fast, copy_objects=copy_objects)
        assert repr(answer.to_dict()) == repr(expected.to_dict()), request
        if answer.request is not None:  # fresh containers: nothing shared with the template or the input
            for key in ("kind", "resource", "requestKind", "requestResource", "userInfo", "options"):
                value = answer.request[key]
                assert value is None or value is not expected.request[key]
            for side in ("object", "oldObject"):
                if answer.request[side] is not None and isinstance(given_, dict) and side in given_:
                    assert answer.request[side] is not given_[side]


def test_a_plain_request_takes_the_template_on_the_second_time_and_shares_nothing_with_it():
    mapper = builtin_mapper().with_crds([])[0]
    request = {"operation": "CREATE", "object": deployment(replicas=3)}
    normalize_request(request, mapper)
    assert ("plain-request", "apps/v1", "Deployment", "CREATE", True, False) in mapper.memo
    first = normalize_request(request, mapper).request
    first["kind"]["kind"] = "Mutated"  # a caller's change reaches neither the template nor the next request
    first["options"]["kind"] = "Mutated"
    first["userInfo"]["groups"].append("x")
    second = normalize_request(request, mapper).request
    assert second["kind"]["kind"] == "Deployment"
    assert second["options"]["kind"] == "CreateOptions"
    assert second["userInfo"]["groups"] == ["kubeadm:cluster-admins", "system:authenticated"]
    assert not [key for key in _general(request, RESTMapper(list(mapper.entries))).request if key not in second]


@pytest.mark.parametrize(
    "request_",
    [
        {"operation": "CREATE", "object": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}},
        {"object": {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}},  # unknown kind
        {"object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, "subResource": "nope"},
        {"object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}},
        {"object": {"apiVersion": "not/a/version", "kind": "Pod", "metadata": {"name": "p"}}},  # an error: not kept
        {"object": {"apiVersion": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"}},
    ],
)
def test_a_remembered_kind_inference_answers_as_a_fresh_mapping(request_: dict) -> None:
    """The second request of a kind takes the mapping's remembered answer: the same request, inferred names,
    warnings and errors as a mapping that has seen nothing, and as the general way."""

    def fresh() -> RESTMapper:
        return RESTMapper(list(builtin_mapper().entries))

    shared = fresh()
    first = normalize_request(copy.deepcopy(request_), shared)  # seen for the first time: fills the memo
    second = normalize_request(copy.deepcopy(request_), shared)
    for out in (second, _general(copy.deepcopy(request_), fresh())):
        assert repr(out.to_dict()) == repr(normalize_request(copy.deepcopy(request_), fresh()).to_dict())
    kept = [key for key in shared.memo if key[0] == "request-kind"]
    assert bool(kept) == (not first.errors and "resource" not in request_)


# -- the uid ------------------------------------------------------------------------------------------------


def test_the_request_uid_is_uuid5_of_the_sorted_json_request() -> None:
    """orjson's sorted compact JSON (keys that are not text written as text); what orjson refuses (a 100-bit
    integer, a lone surrogate) the standard encoder's sorted JSON, unsorted where keys of several types cannot
    be sorted. Equal requests, equal uids; different ones, different; the template's uid is the general way's."""
    uids = set()
    for obj in (
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ünïcode"}, "data": {"when": "</b>&"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"z": "1", "a": "2"}}},
    ):
        for extra, fallback in (
            ({}, False),
            ({"stamp": dt.date(2024, 2, 29), "n": 1.5}, False),
            ({"big": 10**30}, "sorted"),
            ({"keys": {1: "one", "b": "two"}}, False),
            ({"lone": "\ud800"}, "sorted"),
            ({"big": 10**30, "keys": {1: "one", "b": "two"}}, "unsorted"),
        ):
            mapper = builtin_mapper().with_crds([])[0]
            request = normalize_request({"object": {**obj, **extra}}, mapper).request
            given_ = dict(request, uid="")  # as it was encoded: uid not yet set, in its place
            if fallback:
                text = json.dumps(given_, sort_keys=fallback == "sorted", default=str)
            else:
                text = orjson.dumps(given_, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
            assert request["uid"] == str(uuid.uuid5(UID_NAMESPACE, text))
            again = normalize_request({"object": {**obj, **extra}}, mapper)  # now from the template
            assert again.request["uid"] == request["uid"]
            assert _general({"object": {**obj, **extra}}, mapper).request["uid"] == request["uid"]
            uids.add(request["uid"])
    assert len(uids) == 18


class _Str(str):
    pass


@pytest.mark.parametrize(
    "content",
    [
        {"b": 1, "a": [1, {"z": None, "y": 1.5}]},
        {1: "a", "b": "c"},
        {"nested": {"k": {2: 3, 1: [True, {"z": 1, "a": 2}]}}},
        {_Str("k"): _Str("v"), "a": dt.date(2020, 1, 2)},
    ],
)
def test_the_uid_hashes_the_sorted_json_with_non_text_keys_written_as_text(content: dict) -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": content}
    for _ in range(2):  # the general way, then the template
        request = normalize_request({"object": obj}).request
        text = orjson.dumps(
            dict(request, uid=""), default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
        ).decode()
        assert request["uid"] == str(uuid.uuid5(UID_NAMESPACE, text))


def test_an_object_with_keys_of_several_types_gets_an_answer_not_an_internal_error() -> None:
    """A Python caller may pass `{1: "a", "b": "c"}` (JSON and our YAML never do): its uid could not be sorted."""
    from evaluator import simulate

    data = {1: "a", "b": "c"}
    given_as_data = {"source": "request", "document": None}  # given as data: no line to point at
    for big in (1, 10**30):  # orjson, then the standard encoder
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data, "n": big}
        result = simulate([], {"object": obj})
        assert (result["allowed"], result["status"]) == (True, None)
        # `n` is no ConfigMap field: dropped, as the API server drops it, with its Warning
        assert result["requestErrors"] == [
            {"severity": "warning", "path": "request.object.n", "message": 'unknown field "n"', **given_as_data}
        ]
        assert result["response"]["response"]["uid"] == simulate([], {"object": obj})["response"]["response"]["uid"]


def test_a_cyclic_request_is_refused_as_before() -> None:
    cyclic: dict = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "loop"}}
    cyclic["data"] = cyclic
    for _ in range(2):
        with pytest.raises(ValueError, match="Circular reference"):
            normalize_request({"object": cyclic})


# -- random requests: the shortcuts' answer is the general way's ------------------------------------------------

_KINDS = [
    ("apps/v1", "Deployment"),
    ("v1", "Pod"),
    ("v1", "Namespace"),
    ("v1", "ConfigMap"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("example.com/v1", "Widget"),
    ("v1", ""),
    ("a/b/c", "X"),
    (1, "Deployment"),
]
_TEXT = st.one_of(st.sampled_from(["", "web", "prod", "default", 'q"uote\n', "ü"]), st.text(max_size=6))
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def _objects(draw: st.DrawFn) -> dict | None:
    if draw(st.integers(0, 5)) == 0:
        return None
    api_version, kind = draw(st.sampled_from(_KINDS))
    obj: dict = {"apiVersion": api_version, "kind": kind}
    metadata = draw(st.dictionaries(st.sampled_from(["name", "namespace", "labels"]), st.one_of(_TEXT, st.integers())))
    if metadata or draw(st.booleans()):
        obj["metadata"] = metadata
    obj.update(draw(st.dictionaries(st.sampled_from(["spec", "data", "status"]), _VALUES, max_size=2)))
    return obj


@st.composite
def _raw_requests(draw: st.DrawFn) -> dict:
    obj = draw(_objects())
    shape = draw(st.sampled_from(["request", "plain", "review"]))
    if shape == "plain" and obj is not None:
        return obj
    request: dict = {}
    operation = draw(
        st.sampled_from([None, "", "CREATE", "UPDATE", "DELETE", "CONNECT", "BOGUS", ["CREATE"], "absent"])
    )
    if operation != "absent":
        request["operation"] = operation
    if obj is not None or draw(st.booleans()):
        request["object"] = obj
    if draw(st.booleans()):
        old = draw(_objects())
        request["oldObject"] = old if old is not None or draw(st.booleans()) else copy.deepcopy(obj)
    for key in draw(st.lists(st.sampled_from(["name", "namespace", "uid", "dryRun", "subResource"]), max_size=2)):
        request[key] = draw(_TEXT)
    if shape == "review":
        return {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": request}
    return request


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(_raw_requests(), min_size=1, max_size=4), copy_objects=st.booleans())
def test_random_requests_normalize_as_the_general_way_does(requests: list[dict], copy_objects: bool) -> None:
    fast, slow = builtin_mapper().with_crds([])[0], builtin_mapper().with_crds([])[0]
    for request in requests * 2:  # the second time, plain requests of a kind seen take the template
        try:
            expected = repr(_general(copy.deepcopy(request), slow, copy_objects).to_dict())
        except (TypeError, ValueError) as error:  # what the uid's JSON refuses: refused the same way
            with pytest.raises(type(error)):
                normalize_request(copy.deepcopy(request), fast, copy_objects=copy_objects)
            continue
        assert repr(normalize_request(copy.deepcopy(request), fast, copy_objects=copy_objects).to_dict()) == expected
