"""JSON Patch with evanphx/json-patch v4 semantics and error texts (what the API server applies)."""

import pytest

from evaluator.cel.library.jsonpatch import escape_key
from evaluator.policies.mutating import jsonpatch as jp


def apply(doc, *ops):
    return jp.apply_patch(doc, list(ops))


def error_of(doc, *ops) -> str:
    with pytest.raises(jp.PatchError) as info:
        apply(doc, *ops)
    return info.value.message


def test_add_replace_remove_on_maps():
    doc = {"a": {"x": 1}}
    assert apply(doc, {"op": "add", "path": "/a/y", "value": 2}) == {"a": {"x": 1, "y": 2}}
    assert apply(doc, {"op": "remove", "path": "/a/x"}) == {"a": {}}
    assert doc == {"a": {"x": 1}}, "the input is never changed"


def test_replace_of_a_missing_key_adds_it():
    assert apply({"a": {}}, {"op": "replace", "path": "/a/k", "value": "v"}) == {"a": {"k": "v"}}


def test_replace_end_of_list_is_an_error():
    message = error_of({"l": [1]}, {"op": "replace", "path": "/l/-", "value": 2})
    assert message == "replace operation does not apply: doc is missing key: /l/-: missing value"


def test_add_into_a_missing_parent():
    assert (
        error_of({}, {"op": "add", "path": "/a/b", "value": 1})
        == 'add operation does not apply: doc is missing path: "/a/b": missing value'
    )


def test_list_positions_and_negative_indices():
    doc = {"l": ["a", "b", "c"]}
    assert apply(doc, {"op": "add", "path": "/l/0", "value": "x"})["l"] == ["x", "a", "b", "c"]
    assert apply(doc, {"op": "add", "path": "/l/-", "value": "x"})["l"] == ["a", "b", "c", "x"]
    assert apply(doc, {"op": "remove", "path": "/l/-1"})["l"] == ["a", "b"]
    assert apply(doc, {"op": "move", "from": "/l/0", "path": "/l/-"})["l"] == ["b", "c", "a"]
    assert apply(doc, {"op": "copy", "from": "/l/0", "path": "/l/-"})["l"] == ["a", "b", "c", "a"]
    assert (
        error_of(doc, {"op": "add", "path": "/l/5", "value": 1})
        == "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced"
    )


def test_remove_missing_key():
    assert (
        error_of({"a": {}}, {"op": "remove", "path": "/a/b"})
        == "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value"
    )


def test_test_operation():
    doc = {"n": 1, "b": True}
    assert apply(doc, {"op": "test", "path": "/n", "value": 1.0}) == doc
    with pytest.raises(jp.TestFailed) as info:
        apply(doc, {"op": "test", "path": "/b", "value": 1})
    assert info.value.message == "testing value /b failed: test failed"


def test_escaped_keys():
    key = escape_key("k8s.io/x~y")
    assert key == "k8s.io~1x~0y"
    assert apply({"labels": {}}, {"op": "add", "path": "/labels/" + key, "value": "v"}) == {
        "labels": {"k8s.io/x~y": "v"}
    }


def test_unknown_operation():
    assert error_of({}, {"op": "merge", "path": "/a"}) == "Unexpected kind: merge"
