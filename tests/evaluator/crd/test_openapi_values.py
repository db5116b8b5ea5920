"""OpenAPI value validation of a custom resource: the found type's name, the null rule, composition and size
limits, worded as the API server words them (pinned before the type names moved to a table over
k8s.json_kinds)."""

from __future__ import annotations

import pytest

from evaluator.crd.openapi import validate_values


def _texts(schema: dict, data: object, root: str | None = "spec") -> list[str]:
    return [e.text for e in validate_values(schema, data, root)]


@pytest.mark.parametrize(
    ("schema", "data", "found"),
    [
        ({"type": "integer"}, 2.5, "number"),
        ({"type": "integer"}, True, "boolean"),
        ({"type": "string"}, {"a": 1}, "object"),
        ({"type": "object"}, [1], "array"),
        ({"type": "string"}, None, "null"),
    ],
)
def test_a_wrong_type_names_what_was_found(schema, data, found):
    expected = schema["type"]
    assert _texts(schema, data) == [f'spec: Invalid value: "{found}": . in body must be of type {expected}: "{found}"']


@pytest.mark.parametrize(
    ("schema", "data"),
    [
        ({"type": "integer"}, 3.0),  # a float holding an integer is one, as Go's JSON decoding gives it
        ({"type": "number"}, 3),  # a number accepts an integer
        ({"type": "string", "nullable": True}, None),
        ({}, None),  # no type: null is fine
    ],
)
def test_values_of_an_accepted_type(schema, data):
    assert _texts(schema, data) == []


def test_int_or_string_names_both_types():
    schema = {"x-kubernetes-int-or-string": True}
    assert _texts(schema, 1.5) == ['spec: Invalid value: "number": . in body must be of type integer,string: "number"']
    assert _texts(schema, None) == ['spec: Invalid value: "null": . in body must be of type integer,string: "null"']


def test_size_limits_of_lists_and_maps():
    items = {"type": "array", "maxItems": 1, "minItems": 3, "items": {"type": "string"}}
    assert _texts(items, ["a", "b"]) == [
        "spec: Too many: 2: must have at most 1 item",
        'spec: Invalid value: "": . in body should have at least 3 items',
    ]
    props = {"type": "object", "maxProperties": 1, "minProperties": 3}
    assert _texts(props, {"a": 1, "b": 2}) == [
        "spec: Too many: 2: must have at most 1 item",  # the API server words maxProperties as items too
        'spec: Invalid value: "": . in body should have at least 3 properties',
    ]


@pytest.mark.parametrize(
    ("key", "parts", "words"),
    [
        ("anyOf", [{"maxLength": 1}, {"enum": ["zz"]}], "must validate at least one schema (anyOf)"),
        ("oneOf", [{"maxLength": 5}, {"minLength": 1}], "must validate one and only one schema (oneOf)"),
        ("not", {"enum": ["abc"]}, "must not validate the schema (not)"),
    ],
)
def test_composition(key, parts, words):
    assert _texts({"type": "string", key: parts}, "abc") == [f'spec: Invalid value: "abc": . in body {words}']


def test_a_float_bound_is_printed_as_go_prints_it():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "maximum": 2.5}}}
    assert _texts(schema, {"a": 3}, None) == ["a: Invalid value: 3: a in body should be less than or equal to 2.5"]
