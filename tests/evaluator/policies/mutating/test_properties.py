"""Properties over generated input: patches and merges either succeed or fail with their own error type."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.policies.mutating import jsonpatch as jp
from evaluator.policies.mutating.apply import ApplyError, apply_configuration
from evaluator.k8s.object_schema import schema_for

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c", "-"]), children, max_size=3)
    ),
    max_leaves=8,
)
pointers = st.lists(st.sampled_from(["a", "b", "0", "1", "-", "-1", "x~1y"]), max_size=3).map(
    lambda parts: "".join("/" + p for p in parts)
)
operations = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "x"]), "path": pointers},
    optional={"from": pointers, "value": json_values},
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.lists(operations, max_size=4))
def test_json_patch_fails_only_with_patch_errors(doc, ops):
    before = copy.deepcopy(doc)
    try:
        result = jp.apply_patch(doc, ops)
    except jp.PatchError as error:
        assert str(error)  # a patch error says what went wrong
        result = None
    assert doc == before  # the input is never changed, success or not
    if result is not None:
        # ops that succeeded once succeed again on the same input, with the same result
        assert jp.apply_patch(before, ops) == result
        # and each successful step is a prefix: applying them one at a time gives the same document
        stepwise = copy.deepcopy(before)
        for op in ops:
            stepwise = jp.apply_patch(stepwise, [op])
        assert stepwise == result


@settings(max_examples=200, deadline=None)
@given(json_values, pointers, json_values)
def test_json_patch_add_then_test_holds(doc, path, value):
    """Whatever `add` accepts, a `test` of the same path and value right after it passes (RFC 6902)."""
    try:
        added = jp.apply_patch(doc, [{"op": "add", "path": path, "value": value}])
    except jp.PatchError:
        return
    if path.endswith("/-"):
        return  # "-" names the end of an array: there is nothing at it to test
    assert jp.apply_patch(added, [{"op": "test", "path": path, "value": value}]) == added


POD = schema_for("v1", "Pod")
pod_fields = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(st.sampled_from("xyz"), st.text(max_size=2)),
                "finalizers": st.lists(st.sampled_from("fg"), max_size=3),
            },
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "containers": st.lists(
                    st.fixed_dictionaries(
                        {"name": st.sampled_from("abc")}, optional={"image": st.text(max_size=2), "bogus": json_values}
                    ),
                    max_size=3,
                ),
                "hostNetwork": json_values,
            },
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(pod_fields, pod_fields)
def test_apply_fails_only_with_apply_errors_and_is_idempotent(live, patch):
    try:
        merged = apply_configuration(live, patch, POD)
    except ApplyError:
        return
    assert apply_configuration(merged, patch, POD) == merged
