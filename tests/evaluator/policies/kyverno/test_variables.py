"""{{ }} substitution order, escaping, types, DELETE handling and errors."""

import pytest

from evaluator.policies.kyverno.context import Context
from evaluator.policies.kyverno.variables import SubstitutionError, substitute_all


def ctx(op="CREATE"):
    c = Context(
        {
            "request": {
                "operation": op,
                "object": {"metadata": {"name": "web"}, "spec": {"replicas": 3}},
                "oldObject": {"metadata": {"name": "old"}},
            }
        }
    )
    c.operation = op
    return c


def test_whole_string_variable_keeps_its_type():
    assert substitute_all(ctx(), "{{ request.object.spec.replicas }}") == 3


def test_embedded_variable_is_text():
    assert substitute_all(ctx(), "r={{request.object.spec.replicas}} n={{request.object.metadata.name}}") == "r=3 n=web"
    assert substitute_all(ctx(), "m={{request.object.metadata}}") == 'm={"name":"web"}'


def test_escaped_variable_is_kept_literally():
    assert substitute_all(ctx(), "\\{{ request.object.metadata.name }}") == "{{ request.object.metadata.name }}"


def test_nested_substitution_resolves_inner_first():
    c = ctx()
    c.add_variable("which", "name")
    assert substitute_all(c, "{{ request.object.metadata.{{which}} }}") == "web"


def test_delete_reads_old_object():
    assert substitute_all(ctx("DELETE"), "{{ request.object.metadata.name }}") == "old"


def test_keys_are_substituted_too():
    assert substitute_all(ctx(), {"{{request.object.metadata.name}}": 1}) == {"web": 1}


def test_unresolvable_variable_is_a_located_error():
    with pytest.raises(
        SubstitutionError,
        match=r"failed to resolve request.object.spec.nope at path /a: "
        r"JMESPath query failed: Unknown key \"nope\" in path",
    ):
        substitute_all(ctx(), {"a": "{{ request.object.spec.nope }}"})


def test_reference_to_pattern_field():
    doc = {"spec": {"max": "5", "value": "$(../max)"}}
    assert substitute_all(ctx(), doc)["spec"]["value"] == "5"


def test_a_document_without_variables_comes_back_as_a_new_tree_equal_to_it():
    rule = {"mutate": {"patchStrategicMerge": {"spec": {"containers": [{"(name)": "*", "imagePullPolicy": "Always"}]}}}}
    out = substitute_all(ctx(), rule)
    assert out == rule
    inner = out["mutate"]["patchStrategicMerge"]["spec"]["containers"]
    inner.append("x")  # the caller may change what it gets without changing the policy
    assert rule["mutate"]["patchStrategicMerge"]["spec"]["containers"] == [{"(name)": "*", "imagePullPolicy": "Always"}]


def test_a_key_that_is_not_a_string_is_an_error_even_without_variables():
    with pytest.raises(SubstitutionError, match="expected string after substituting variables in key"):
        substitute_all(ctx(), {"spec": {1: "a"}})
