"""Composited variables: lazy, memoised per expression list, errors surface where they are used."""

from __future__ import annotations

from evaluator.simulation import simulate


def run(vap, variables, validations, mode="enforce", **spec):
    policy = vap.policy(validations=validations, variables=[{"name": n, "expression": e} for n, e in variables], **spec)
    return simulate(
        [policy, vap.binding(), vap.namespace()], vap.create(vap.configmap(data={"a": "1"})), api_validation=mode
    )


def test_variables_chain_and_are_evaluated_in_order_of_first_use(vap):
    result = run(
        vap,
        [("a", "object.data.a"), ("b", "variables.a + '2'"), ("unused", "object.data.nope")],
        [{"expression": "variables.b == '12'"}, {"expression": "variables.a == '1'"}],
    )
    assert result["allowed"] is True
    trace = [v for v in vap.tuples(result)[0]["trace"]["variables"] if v["phase"] == "validations"]
    assert [v["name"] for v in trace] == ["b", "a"]  # b is referenced first and asks for a while evaluating
    assert all(v["error"] is None for v in trace)
    assert trace[0]["value"] == "12" and trace[0]["type"] == "string"


def test_unused_failing_variable_is_never_evaluated(vap):
    result = run(vap, [("broken", "object.data.nope")], [{"expression": "true"}])
    assert result["allowed"] is True
    assert vap.tuples(result)[0]["trace"]["variables"] == []


def test_variable_error_surfaces_at_the_referring_expression(vap):
    result = run(vap, [("broken", "object.data.nope")], [{"expression": "variables.broken == 'x'"}])
    assert result["status"]["message"].endswith(
        "denied request: expression 'variables.broken == 'x'' resulted in error: "
        'composited variable "broken" fails to evaluate: no such key: nope'
    )


def test_variable_is_memoised_within_a_list(vap):
    result = run(
        vap, [("v", "object.data.a")], [{"expression": "variables.v == '1'"}, {"expression": "variables.v != '2'"}]
    )
    trace = [v for v in vap.tuples(result)[0]["trace"]["variables"] if v["phase"] == "validations"]
    assert len(trace) == 1


def test_message_expressions_get_a_fresh_composition(vap):
    result = run(
        vap,
        [("v", "object.data.a")],
        [{"expression": "variables.v == '2'", "messageExpression": "'got ' + variables.v"}],
    )
    assert result["status"]["message"].endswith("denied request: got 1")
    phases = [v["phase"] for v in vap.tuples(result)[0]["trace"]["variables"]]
    assert phases == ["validations", "messageExpressions"]


def test_variables_are_visible_to_match_conditions(vap):
    result = run(
        vap,
        [("isA", "object.data.a == '1'")],
        [{"expression": "false"}],
        matchConditions=[{"name": "only-a", "expression": "!variables.isA"}],
    )
    assert result["allowed"] is True
    assert vap.tuples(result)[0]["skipReason"] == "matchCondition 'only-a' evaluated to false"


def test_forward_reference_does_not_compile(vap):
    result = run(
        vap,
        [("first", "variables.second + 'x'"), ("second", "'y'")],
        [{"expression": "variables.first == 'yx'"}],
        mode="report",
    )
    assert result["allowed"] is False
    assert result["status"]["message"].endswith(
        'resulted in error: composited variable "first" fails to compile: compilation failed: '
        "ERROR: <input>:1:10: undefined field 'second'\n | variables.second + 'x'\n | .........^"
    )
    assert any(e.get("path") == "spec.variables[0].expression" for e in result["errors"])


def test_unknown_variable_in_validation_does_not_compile(vap):
    result = run(vap, [("a", "'1'")], [{"expression": "variables.nope == '1'"}], mode="report")
    assert (
        "compilation error: compilation failed: ERROR: <input>:1:10: undefined field 'nope'"
        in result["status"]["message"]
    )


def test_forward_reference_refuses_the_policy_like_kubectl_apply(vap):
    policy = vap.policy(
        validations=[{"expression": "variables.first == 'yx'"}],
        variables=[{"name": "first", "expression": "variables.second + 'x'"}, {"name": "second", "expression": "'y'"}],
    )
    result = simulate([policy, vap.binding(), vap.namespace()], vap.create(vap.configmap()))
    assert result["allowed"] is True and result["policies"] == []
    error = next(e for e in result["errors"] if e.get("path") == "spec.variables[0].expression")
    assert error["text"].startswith(
        "spec.variables[0].expression: Invalid value: \"variables.second + 'x'\": "
        "compilation failed: ERROR: <input>:1:10: undefined field 'second'"
    )


def test_variables_are_typed_by_their_expressions_for_the_return_type_check(vap):
    """CompileAndStoreVariables declares `variables.<name>` with its expression's type, so a bool variable is
    a valid validation while a dyn one is refused ("must evaluate to bool but got dyn", compile.go)."""
    variables = [("isA", "object.data.a == '1'"), ("a", "object.data.a"), ("both", "[variables.isA, true]")]
    assert run(vap, variables, [{"expression": "variables.isA && variables.both.all(x, x)"}])["allowed"] is True
    refused = run(vap, variables, [{"expression": "variables.a"}])
    assert any(
        e["message"] == "must evaluate to bool but got dyn" and e.get("path") == "spec.validations[0].expression"
        for e in refused["errors"]
    ), refused["errors"]
    later = run(vap, [("x", "variables.y"), ("y", "true")], [{"expression": "true"}])
    assert any("undefined field 'y'" in e["message"] for e in later["errors"])  # only earlier variables exist
