"""Round 6 of the full-result hot path: each shortcut gives what the longer way gives (compared with it here),
and a request leaves no cyclic garbage behind."""

from __future__ import annotations

import copy
import datetime as dt
import gc
import hashlib
import json
import random

import orjson
import pytest

from evaluator.admission import audit
from evaluator.admission.request import _UID_PREFIX, _deterministic_uid
from evaluator.k8s.defaulting.fields import clone
from evaluator.policies.mutating.admission import mutation_output, unchanged_output
from evaluator.policies.mutating.dispatcher import MutationResult
from evaluator.simulation import Simulation
from tests.evaluator.test_hot_path import _deployment, _policy

DOCUMENTS = _policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]})


def test_a_request_leaves_no_cyclic_garbage():
    simulation = Simulation(DOCUMENTS)
    requests = [{"operation": "CREATE", "object": _deployment(replicas=replicas)} for replicas in (1, 9)]
    simulation.run(requests[0])  # warm: compiled programs, match answers
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        results = [simulation.run(request) for request in requests * 3]
        assert gc.collect() == 0  # everything a request made and dropped was freed by reference counting
    finally:
        if enabled:
            gc.enable()
    assert [r["allowed"] for r in results] == [True, False] * 3


def test_unchanged_mutation_output_is_mutation_outputs():
    for original in (None, {"kind": "Deployment", "spec": {"replicas": 1}}):
        shortcut = unchanged_output(original)
        longer = mutation_output(MutationResult(original=original, object=original))
        assert list(shortcut) == list(longer)
        assert json.dumps(shortcut) == json.dumps(longer)
        assert shortcut["patchedObject"] is original
        assert unchanged_output(original)["patch"] is not shortcut["patch"]  # fresh lists per result


def test_timestamp_is_isoformats_text():
    rng = random.Random(6)
    zones = [None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=-7, minutes=-30))]
    for i in range(3000):
        moment = dt.datetime(
            rng.randint(1, 9999),
            rng.randint(1, 12),
            rng.randint(1, 28),
            rng.randint(0, 23),
            rng.randint(0, 59),
            rng.randint(0, 59),
            rng.choice([0, 1, 999_999, rng.randint(0, 999_999)]),
            tzinfo=zones[i % 3],
        )
        for value in (moment, moment.replace(microsecond=(moment.microsecond + 1) % 1_000_000)):
            expected = (
                value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                if value.year < 1000
                else value.isoformat(timespec="microseconds")[:26] + "Z"
            )
            assert audit._timestamp(value) == expected


class _Str(str):
    pass


@pytest.mark.parametrize(
    "request_",
    [
        {"uid": "", "object": {"b": 1, "a": [1, {"z": None, "y": 1.5}]}},
        {"uid": "", "object": {1: "a", "b": "c"}},
        {"nested": {"k": {2: 3, 1: [True, {"z": 1, "a": 2}]}}},
        {_Str("k"): _Str("v"), "a": dt.date(2020, 1, 2)},
    ],
)
def test_uid_text_is_the_sorted_json_with_non_text_keys(request_):
    """The uid hashes orjson's sorted JSON as written with OPT_NON_STR_KEYS, whichever option wrote it."""
    text = orjson.dumps(request_, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    digest = hashlib.sha1(_UID_PREFIX + text, usedforsecurity=False).hexdigest()
    uid = _deterministic_uid(request_)
    assert uid.replace("-", "")[:12] == digest[:12]
    assert uid.replace("-", "")[13:16] == digest[13:16] and uid[14] == "5"
    assert uid.replace("-", "")[20:] == digest[20:32]


def test_clone_is_a_deep_copy_in_the_same_order():
    value = {
        "b": [1, {"y": [], "x": {"q": "r"}}, ["s", {"t": None}]],
        "a": {"c": {"d": [2.5, True]}},
        "e": "f",
    }
    copied = clone(value)
    assert copied == value == copy.deepcopy(value)
    assert json.dumps(copied) == json.dumps(value)

    def containers(node, found):
        if isinstance(node, (dict, list)):
            found.append(node)
            for child in node.values() if isinstance(node, dict) else node:
                containers(child, found)
        return found

    originals = {id(c) for c in containers(value, [])}
    assert not originals & {id(c) for c in containers(copied, [])}  # no container shared with the input
