"""`json_patch_between` skips the subtrees both objects have unchanged; its patch must stay the one
`jsonpatch.make_patch` computes over the whole objects (operations, order, paths, value types)."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import pytest

from evaluator.policies.mutating.diff import json_patch_between

# scalars that compare equal in Python but not in JSON (1, 1.0, True; 0.0 and -0.0)
SCALARS: list[Any] = [0, 1, 1.0, -0.0, 0.0, True, False, None, "a", "b", "", "x/y~z"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.2:
        return {rng.choice("abcde"): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 3 and roll < 0.35:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice(SCALARS)


def _changed(rng: random.Random, value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.5:
            value[key] = _changed(rng, value[key], depth + 1)
        elif roll < 0.7:
            del value[key]
        else:
            value[rng.choice("abcdefg")] = _value(rng, depth)
        return value
    if isinstance(value, list) and rng.random() < 0.7:
        roll = rng.random()
        if value and roll < 0.5:
            i = rng.randrange(len(value))
            value[i] = _changed(rng, value[i], depth + 1)
        elif value and roll < 0.7:
            value.pop(rng.randrange(len(value)))
        else:
            value.insert(rng.randint(0, len(value)), _value(rng, depth))
        return value
    return _value(rng, depth)


def _pod(i: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p{i}", "labels": {"app": "a"} if i % 2 else {}},
        "spec": {
            "containers": [{"name": "app", "image": f"app:{i}", "resources": {"limits": {"cpu": 1}}}],
            "volumes": [{"name": "v", "emptyDir": {}}] * (i % 3),
        },
    }


@pytest.mark.parametrize("seed", range(4))
def test_same_patch_as_make_patch(seed: int) -> None:
    rng = random.Random(seed)
    documents = [_pod(i) for i in range(10)] + [_value(rng) for _ in range(40)]
    for document in documents:
        for _ in range(25):
            before, after = copy.deepcopy(document), copy.deepcopy(document)
            for _ in range(rng.randint(1, 4)):
                after = _changed(rng, after)
            if rng.random() < 0.3:
                before = _changed(rng, before)
            if before is None or after is None:
                continue
            expected = list(jsonpatch.make_patch(before, after).patch)
            got = json_patch_between(before, after)
            assert repr(got) == repr(expected), (before, after)


def test_shared_subtrees_and_json_types() -> None:
    shared = {"containers": [{"name": "a", "image": "x"}]}
    before = {"spec": shared, "n": 1, "f": 0.0, "b": True}
    after = {"spec": shared, "n": 1.0, "f": -0.0, "b": 1}
    assert json_patch_between(before, after) == [
        {"op": "replace", "path": "/n", "value": 1.0},
        {"op": "replace", "path": "/f", "value": -0.0},
        {"op": "replace", "path": "/b", "value": 1},
    ]
    assert json_patch_between(before, before) == []
