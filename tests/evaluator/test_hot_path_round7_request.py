"""Round 7 of the full-result hot path, the request's normalisation: each shortcut gives what the longer way
gives (compared with it here)."""

from __future__ import annotations

import copy
import hashlib
import uuid

import pytest

from evaluator.admission import request as normalization
from evaluator.admission.request import _UID_NAMESPACE, _deterministic_uid, _Normalizer, _uid_of, normalize_request
from evaluator.k8s.restmapping import RESTMapper, builtin_mapper
from tests.evaluator.test_hot_path import _deployment


def _general(data, mapper, copy_objects=True):
    """The longer way: the general normaliser, whatever the request's shape."""
    raw, _, errors = normalization.extract_request(data)
    if raw is None:
        return normalization.NormalizedRequest(None, errors)
    return _Normalizer(raw, mapper, copy_objects)._general()


def _namespace(name, **labels):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def _requests():
    deployment = _deployment(replicas=3)
    unnamed = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": {"a": "b"}}}
    no_namespace = copy.deepcopy(deployment)
    del no_namespace["metadata"]["namespace"]
    odd_metadata = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": 5, "namespace": ["x"]}}
    no_metadata = {"apiVersion": "v1", "kind": "ConfigMap"}
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "n"}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    non_text_keys = {**deployment, "data": {1: "one"}}
    big_number = {**deployment, "spec": {"replicas": 2**70}}
    return [
        {"operation": "CREATE", "object": deployment},
        {"object": deployment},
        deployment,
        {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {"object": deployment}},
        {"operation": "UPDATE", "object": deployment, "oldObject": no_namespace},
        {"object": deployment, "oldObject": no_namespace},
        {"operation": "DELETE", "oldObject": deployment},
        {"oldObject": deployment},
        {"operation": "DELETE", "object": deployment, "oldObject": no_namespace},
        {"operation": "DELETE", "object": no_namespace},
        {"operation": "CONNECT", "object": deployment},
        {"operation": "", "object": deployment},
        {"operation": None, "oldObject": deployment},
        {"operation": "BOGUS", "object": deployment},
        {"operation": ["CREATE"], "object": deployment},
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
        # not plain: the general way only
        {"object": deployment, "name": "given"},
        {"object": deployment, "uid": "u"},
        {"object": deployment, "dryRun": True},
    ]


@pytest.mark.parametrize("copy_objects", [True, False])
@pytest.mark.parametrize("mapper", [builtin_mapper, lambda: RESTMapper.from_registry([])], ids=["builtin", "empty"])
def test_plain_requests_normalize_as_the_general_way_does(copy_objects, mapper):
    fast, slow = mapper(), mapper()
    for request in _requests() * 2:  # the second time through, plain requests take the template
        expected = _general(copy.deepcopy(request), slow, copy_objects)
        given = copy.deepcopy(request)
        answer = normalize_request(given, fast, copy_objects=copy_objects)
        assert repr(answer.to_dict()) == repr(expected.to_dict()), request
        if answer.request is not None:  # fresh containers: nothing shared with the template or the input
            for key in ("kind", "resource", "requestKind", "requestResource", "userInfo", "options"):
                value = answer.request[key]
                assert value is None or value is not expected.request[key]
            for side in ("object", "oldObject"):
                if answer.request[side] is not None and isinstance(given, dict) and side in given:
                    assert answer.request[side] is not given[side]


def test_a_plain_request_takes_the_template_on_the_second_time():
    mapper = builtin_mapper().with_crds([])[0]
    request = {"operation": "CREATE", "object": _deployment(replicas=3)}
    normalize_request(request, mapper)
    assert ("plain-request", "apps/v1", "Deployment", "CREATE", True) in mapper.memo
    first = normalize_request(request, mapper).request
    first["kind"]["kind"] = "Mutated"  # a caller's change reaches neither the template nor the next request
    first["options"]["kind"] = "Mutated"
    first["userInfo"]["groups"].append("x")
    second = normalize_request(request, mapper).request
    assert second["kind"]["kind"] == "Deployment"
    assert second["options"]["kind"] == "CreateOptions"
    assert second["userInfo"]["groups"] == ["kubeadm:cluster-admins", "system:authenticated"]


def test_the_templates_uid_is_the_whole_requests_uid():
    mapper = builtin_mapper().with_crds([])[0]
    for request in _requests():
        normalized = _general(copy.deepcopy(request), mapper)
        if normalized.request is None or normalized.errors:
            continue
        template = normalization._Template(normalized)
        model = {**normalized.request, "uid": ""}
        for name, namespace in (("a", "b"), ("", ""), ('q"uote\n', "ü")):
            varied = {**model, "name": name, "namespace": namespace}
            assert template.uid(varied) == _deterministic_uid(varied)


def test_the_uid_is_uuid5_of_the_requests_json():
    for text in (b"{}", b'{"a":1}', bytes(range(256))):
        digest = hashlib.sha1(_UID_NAMESPACE.bytes + text).digest()
        assert _uid_of(_UID_NAMESPACE.bytes + text) == str(uuid.UUID(bytes=digest[:16], version=5))
    for digit, variant in normalization._VARIANT.items():
        assert variant == "89ab"[int(digit, 16) & 3]


def test_the_results_loops_give_what_the_generators_gave():
    from evaluator.admission import result
    from evaluator.admission.policy_kind import Denial, KindOutcome

    records = [{"outcome": o} for o in ("denied", "admitted", "denied", "mutated", "skipped")]
    expected = dict.fromkeys(result.OUTCOMES, 0)
    for record in records:
        expected[record["outcome"]] = expected.get(record["outcome"], 0) + 1
    assert list(result.summary(records).items()) == list(expected.items())
    assert result.summary([]) == dict.fromkeys(result.OUTCOMES, 0) and result.summary([]) is not result.summary([])
    first, second = Denial({"code": 403}), Denial({"code": 422})
    outcomes = [KindOutcome(patch="p1"), KindOutcome(denial=first), KindOutcome(denial=second, patch="p2")]
    for chosen in (outcomes, outcomes[:1], [], outcomes[::-1]):
        assert result._first_denial(chosen) is next((o.denial for o in chosen if o.denial is not None), None)
        assert result._last_patch(chosen) == next((o.patch for o in reversed(chosen) if o.patch), None)
