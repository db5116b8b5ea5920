"""matchConditions are all-or-skip; only "no false, some errors" follows failurePolicy."""

from __future__ import annotations

import pytest

from evaluator.simulation import simulate

ERR = "object.data.missingKey == 'x'"


def run(vap, conditions, failure_policy=None):
    policy = vap.policy(
        validations=[{"expression": "false", "message": "validated"}],
        failure_policy=failure_policy,
        matchConditions=[{"name": f"c{i}", "expression": e} for i, e in enumerate(conditions)],
    )
    return simulate([policy, vap.binding(), vap.namespace()], vap.create(vap.configmap()))


@pytest.mark.parametrize("conditions", [["false", ERR], [ERR, "false"], ["true", "false"]])
def test_any_false_skips_even_with_errors(vap, conditions):
    result = run(vap, conditions)
    assert result["allowed"] is True
    record = vap.tuples(result)[0]
    assert record["outcome"] == "skipped" and "evaluated to false" in record["skipReason"]


def test_all_true_evaluates_validations(vap):
    result = run(vap, ["true", "object.kind == 'ConfigMap'"])
    assert result["status"]["message"].endswith("denied request: validated")


def test_error_without_false_fails_closed(vap):
    result = run(vap, ["true", ERR])
    assert result["allowed"] is False
    assert result["status"]["message"].endswith(
        "denied request: expression 'object.data.missingKey == 'x'' resulted in error: no such key: missingKey"
    )


def test_several_errors_are_aggregated(vap):
    result = run(vap, [ERR, "object.data.other == 'y'"])
    assert (
        "denied request: [expression 'object.data.missingKey == 'x'' resulted in error: no such key: missingKey, "
        "expression 'object.data.other == 'y'' resulted in error: no such key: other]" in result["status"]["message"]
    )


def test_error_without_false_is_skipped_under_ignore(vap):
    result = run(vap, ["true", ERR], failure_policy="Ignore")
    assert result["allowed"] is True
    assert vap.tuples(result)[0]["outcome"] == "skipped"


def test_namespace_object_is_null_in_match_conditions(vap):
    result = run(vap, ["namespaceObject == null"])
    assert result["allowed"] is False  # matched, so the validation ran
    trace = vap.tuples(result)[0]["trace"]["matchConditions"]
    assert trace[0]["value"] is True and trace[0]["name"] == "c0"


def test_compile_error_in_validation_is_harmless_when_conditions_exclude(vap):
    policy = vap.policy(
        validations=[{"expression": "object.data.a.startWith('x')"}],
        matchConditions=[{"name": "never", "expression": "false"}],
    )
    result = simulate([policy, vap.binding(), vap.namespace()], vap.create(vap.configmap()), api_validation="report")
    assert result["allowed"] is True
    assert result["policies"][0]["outcome"] == "skipped"  # it took part, and the condition excluded it
    assert any(e.get("path") == "spec.validations[0].expression" for e in result["errors"])
