"""The standalone validator's contract: the Go validator's results, and bad input never crashes."""

from __future__ import annotations

from evaluator import crd

SCHEMA = {
    "type": "object",
    "properties": {"items": {"type": "array", "maxItems": 10, "items": {"type": "string"}}},
    "x-kubernetes-validations": [
        {"rule": "self.items.all(i, i.size() < 5)", "message": "short items"},
        {"rule": "self.items == oldSelf.items", "message": "immutable"},
    ],
}


def test_validate_reports_field_errors_and_the_budget_left():
    result = crd.validate(SCHEMA, {"items": ["abcdef"]})
    assert result["errors"] == [
        {
            "type": "FieldValueInvalid",
            "field": "root",
            "detail": "short items",
            "text": "root: Invalid value: short items",
        }
    ]
    assert result["warnings"] == []
    assert 0 < 10_000_000 - result["remainingBudget"] < 100


def test_transition_rules_need_an_old_object():
    assert crd.validate(SCHEMA, {"items": ["a"]})["errors"] == []
    errors = crd.validate(SCHEMA, {"items": ["a"]}, {"items": ["b"]})["errors"]
    assert [e["detail"] for e in errors] == ["immutable"]


def test_compile_rules_gives_each_root_rule_with_its_estimated_cost():
    results = crd.compile_rules(SCHEMA)
    assert [(r["error"], r["usesOldSelf"]) for r in results] == [(None, False), (None, True)]
    assert all(r["maxCost"] > 0 for r in results)
    broken = crd.compile_rules({"type": "integer", "x-kubernetes-validations": [{"rule": "self == 'a'"}]})
    assert broken[0]["error"].startswith(
        "compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_'"
    )


def test_the_budget_running_out_stops_validation_with_the_api_servers_error():
    result = crd.validate(SCHEMA, {"items": ["a"]}, cost_budget=3)
    assert result["remainingBudget"] == -1
    assert result["errors"][-1]["detail"] == (
        "validation failed due to running out of cost budget, no further validation rules will be run"
    )


def test_bad_input_is_data_not_a_crash():
    assert crd.validate("not a schema", {"a": 1})["errors"] == []
    assert crd.validate(SCHEMA, "not an object")["errors"][0]["detail"] == (
        "invalid data, expected a map for the provided schema with type=object evaluating rule: short items"
    )
    deep: dict = {}
    node = deep
    for _ in range(3000):
        node["x"] = {}
        node = node["x"]
    schema = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "x-kubernetes-validations": [{"rule": "self == self"}],
    }
    result = crd.validate(schema, deep)
    assert isinstance(result["errors"], list)
    assert crd.compile_rules({"type": "object", "x-kubernetes-validations": [None, {"rule": 5}]})[0]["error"] is None


def test_a_schema_nested_too_deeply_is_an_error_not_a_crash():
    schema: dict = {"type": "object", "x-kubernetes-validations": [{"rule": "true"}]}
    node = schema
    for _ in range(5000):
        node["properties"] = {"a": {"type": "object", "x-kubernetes-validations": [{"rule": "true"}]}}
        node = node["properties"]["a"]
    assert crd.validate(schema, {"a": {}})["errors"][0]["detail"] == "schema or object nested too deeply"
    assert crd.compile_rules(schema)[0]["error"] == "schema nested too deeply"
