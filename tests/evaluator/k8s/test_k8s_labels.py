"""Label selector semantics and error wording (apimachinery labels + metav1 validation)."""

from __future__ import annotations

import pytest

from evaluator.k8s.labels import (
    EVERYTHING,
    NOTHING,
    object_labels,
    parse_selector,
    selector_matches,
    validate_label_selector,
)

LABEL_VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    "selector, labels, expected",
    [
        ({}, {}, True),
        ({}, {"a": "b"}, True),
        ({"matchLabels": {"env": "prod"}}, {"env": "prod", "x": "y"}, True),
        ({"matchLabels": {"env": "prod"}}, {"env": "dev"}, False),
        ({"matchLabels": {"env": "prod"}}, {}, False),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]}]}, {"env": "b"}, True),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a"]}]}, {}, False),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["test"]}]}, {}, True),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["test"]}]}, {"env": "test"}, False),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["test"]}]}, {"env": "prod"}, True),
        ({"matchExpressions": [{"key": "env", "operator": "Exists"}]}, {"env": ""}, True),
        ({"matchExpressions": [{"key": "env", "operator": "Exists"}]}, {}, False),
        ({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]}, {}, True),
        ({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]}, {"env": "x"}, False),
        (
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}],
            },
            {"app": "web", "tier": "db"},
            False,
        ),
    ],
)
def test_selector_semantics(selector, labels, expected):
    parsed, error = parse_selector(selector)
    assert error is None
    assert parsed.matches(labels) is expected
    assert selector_matches(selector, labels) is expected


def test_nil_selects_nothing_and_empty_selects_everything():
    assert parse_selector(None) == (NOTHING, None)
    assert parse_selector({}) == (EVERYTHING, None)
    assert parse_selector({"matchLabels": {}, "matchExpressions": []}) == (EVERYTHING, None)
    assert not NOTHING.matches({"a": "b"}) and not NOTHING.empty
    assert EVERYTHING.empty


def test_invalid_value_is_worded_like_labels_new_requirement():
    _, error = parse_selector({"matchExpressions": [{"key": "key", "operator": "In", "values": ["bad value"]}]})
    assert error == f'values[0][bad value]: Invalid value: "bad value": {LABEL_VALUE_RULE}'


def test_unknown_operator_and_empty_values():
    _, error = parse_selector({"matchExpressions": [{"key": "k", "operator": "Equals", "values": ["a"]}]})
    assert error == '"Equals" is not a valid label selector operator'
    _, error = parse_selector({"matchExpressions": [{"key": "k", "operator": "In", "values": []}]})
    assert error == "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
    _, error = parse_selector({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["a"]}]})
    assert error == 'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist'


def test_invalid_key_in_match_labels():
    _, error = parse_selector({"matchLabels": {"bad key": "v"}})
    assert error.startswith('key: Invalid value: "bad key": name part must consist of alphanumeric characters')


def test_selector_matches_is_false_for_broken_selectors():
    assert selector_matches({"matchExpressions": [{"key": "k", "operator": "Bogus"}]}, {"k": "v"}) is False


def test_validate_label_selector_paths_and_messages():
    errors = validate_label_selector(
        {
            "matchLabels": {"ok": "bad value"},
            "matchExpressions": [
                {"key": "a", "operator": "In"},
                {"key": "b", "operator": "Exists", "values": ["x"]},
                {"key": "c", "operator": "Near", "values": ["x"]},
            ],
        },
        "spec.matchConstraints.namespaceSelector",
    )
    texts = [str(e) for e in errors]
    base = "spec.matchConstraints.namespaceSelector"
    assert texts == [
        f'{base}.matchLabels: Invalid value: "bad value": {LABEL_VALUE_RULE}',
        f"{base}.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        f"{base}.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        f'{base}.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
    ]
    assert validate_label_selector({}, "x") == []
    assert validate_label_selector(None, "x") == []


def test_object_labels_tolerates_malformed_objects():
    assert object_labels({"metadata": {"labels": {"a": "b", "n": 1}}}) == {"a": "b"}
    assert object_labels({"metadata": None}) == {}
    assert object_labels(None) == {}


def test_null_match_label_value_means_empty_string():
    parsed, error = parse_selector({"matchLabels": {"flag": None}})
    assert error is None
    assert parsed.matches({"flag": ""}) and not parsed.matches({"flag": "x"})
    assert parse_selector({"matchLabels": {"n": 3}})[1] == "matchLabels[n] must be a string"
