"""auditAnnotations: `<policy>/<key>`, null and blank dropped, errors follow failurePolicy, values joined."""

from __future__ import annotations

from evaluator.simulation import simulate


def run(vap, annotations, bindings=None, failure_policy=None, mode="enforce"):
    policy = vap.policy(
        auditAnnotations=[{"key": k, "valueExpression": e} for k, e in annotations], failure_policy=failure_policy
    )
    bindings = bindings or [vap.binding()]
    return simulate([policy, *bindings, vap.namespace()], vap.create(vap.configmap()), api_validation=mode)


def test_key_prefix_and_null_or_blank_dropped(vap):
    result = run(vap, [("kept", "'value '"), ("null", "null"), ("blank", "'  '")])
    assert result["auditAnnotations"] == {"p/kept": "value"}
    assert result["auditEvent"]["annotations"]["p/kept"] == "value"
    assert result["allowed"] is True


def test_a_dyn_value_does_not_compile(vap):
    """compile.go wants the output type to be exactly string or null: `object.metadata` is dyn, refused when
    the policy is created (and, loaded anyway, a compilation error under failurePolicy)."""
    result = run(vap, [("n", "object.metadata")], mode="report")
    assert result["status"]["message"].endswith(
        "denied request: compilation error: must evaluate to one of [string null_type] but got dyn"
    )
    assert run(vap, [("n", "string(object.metadata.name)")])["auditAnnotations"] == {"p/n": "cm"}


def test_statically_non_string_value_does_not_compile(vap):
    result = run(vap, [("n", "1")], mode="report")
    assert result["status"]["message"].endswith(
        "denied request: compilation error: must evaluate to one of [string null_type] but got int"
    )
    assert run(vap, [("n", "1")], failure_policy="Ignore", mode="report")["allowed"] is True


def test_evaluation_error_denies_under_fail_and_drops_under_ignore(vap):
    failing = [("k", "string(object.data.nope)")]
    assert run(vap, failing)["allowed"] is False
    ignored = run(vap, failing, failure_policy="Ignore")
    assert ignored["allowed"] is True and ignored["auditAnnotations"] == {}


def test_values_from_several_bindings_are_deduplicated_and_joined(vap):
    bindings = [vap.binding("b1"), vap.binding("b2"), vap.binding("b3")]
    result = run(vap, [("k", "'same'")], bindings=bindings)
    assert result["auditAnnotations"] == {"p/k": "same"}


def test_distinct_values_are_joined_with_comma(vap):
    policy = vap.policy(
        auditAnnotations=[{"key": "k", "valueExpression": "string(params.data.v)"}],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    params = [vap.configmap("p1", data={"v": "one"}), vap.configmap("p2", data={"v": "two"})]
    bindings = [
        vap.binding("b1", paramRef={"name": "p1", "namespace": "default"}),
        vap.binding("b2", paramRef={"name": "p2", "namespace": "default"}),
    ]
    result = simulate([policy, *bindings, *params, vap.namespace()], vap.create(vap.configmap()))
    assert result["auditAnnotations"] == {"p/k": "one, two"}


def test_a_ternary_of_string_and_null_does_not_compile(vap):
    """cel-go types `_?_:_` as (bool, A, A) -> A and `null` is not assignable to string, so the form the
    Kubernetes documentation shows is refused; `''` (also dropped) compiles."""
    docs_form = "object.metadata.name == 'x' ? 'name ' + object.metadata.name : null"
    result = run(vap, [("n", docs_form)], mode="report")
    assert "found no matching overload for '_?_:_' applied to '(bool, string, null)'" in result["status"]["message"]
    assert run(vap, [("n", "object.metadata.name != 'x' ? 'name ' + object.metadata.name : ''")])[
        "auditAnnotations"
    ] == {"p/n": "name " + vap.configmap()["metadata"]["name"]}
    dyn_branch = run(vap, [("n", "true ? object.metadata.name : null")], mode="report")  # dyn and null unify,
    assert dyn_branch["status"]["message"].endswith("but got dyn")  # but dyn is neither string nor null
