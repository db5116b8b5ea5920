"""Validations, messages, reasons and validation actions as the API server's validator and dispatcher."""

from __future__ import annotations

import json

import pytest

from evaluator.simulation import simulate

PREFIX = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "


def run(vap, validations, *, actions=None, failure_policy=None, data=None, mode="enforce", **spec):
    docs = [
        vap.policy(validations=validations, failure_policy=failure_policy, **spec),
        vap.binding(actions=actions),
        vap.namespace(),
    ]
    return simulate(docs, vap.create(vap.configmap(data=data or {"a": "1"})), api_validation=mode)


def test_passing_validation_admits(vap):
    result = run(vap, [{"expression": "object.data.a == '1'"}])
    assert result["allowed"] is True and result["status"] is None
    assert vap.tuples(result)[0]["outcome"] == "admitted"


def test_denial_message_and_kubectl_text(vap):
    result = run(vap, [{"expression": "object.data.a == '2'"}])
    assert result["allowed"] is False
    assert (
        result["status"]["message"]
        == 'configmaps "cm" is forbidden: ' + PREFIX + "failed expression: object.data.a == '2'"
    )
    assert result["status"]["code"] == 422 and result["status"]["reason"] == "Invalid"
    assert result["ferricel"] == {"accepted": False, "message": "failed expression: object.data.a == '2'", "code": 422}
    assert result["response"]["response"]["allowed"] is False
    assert result["auditEvent"]["responseStatus"]["code"] == 422


@pytest.mark.parametrize(
    "reason,code", [("Forbidden", 403), ("Unauthorized", 401), ("RequestEntityTooLarge", 413), ("Invalid", 422)]
)
def test_reason_gives_code(vap, reason, code):
    result = run(vap, [{"expression": "false", "reason": reason}])
    assert (result["status"]["code"], result["status"]["reason"]) == (code, reason)


def test_first_failure_sets_reason_and_message(vap):
    result = run(
        vap,
        [
            {"expression": "true"},
            {"expression": "false", "message": "first", "reason": "Forbidden"},
            {"expression": "false", "message": "second", "reason": "Unauthorized"},
        ],
    )
    assert result["status"]["message"].endswith(PREFIX + "first")
    assert result["status"]["code"] == 403


@pytest.mark.parametrize(
    "message_expression,expected",
    [
        ("'computed'", "computed"),
        ("'  padded  '", "padded"),
        ("string(object.data.missing)", "static"),  # error -> static message
        ("'   '", "static"),  # blank -> static message
        ("'two\\nlines'", "static"),  # newline -> static message
        ("'" + "x" * 5121 + "'", "static"),  # over 5120 bytes -> static message
        ("'" + "é" * 2561 + "'", "static"),  # bytes, not characters, are counted
    ],
)
def test_message_expression_fallbacks(vap, message_expression, expected):
    result = run(
        vap,
        [{"expression": "false", "message": "static", "messageExpression": message_expression, "reason": "Forbidden"}],
    )
    assert result["status"]["message"].endswith(PREFIX + expected)
    assert result["status"]["reason"] == "Forbidden"


def test_message_expression_of_exactly_5120_bytes_is_kept(vap):
    result = run(vap, [{"expression": "false", "message": "static", "messageExpression": "'" + "x" * 5120 + "'"}])
    assert result["status"]["message"].endswith(PREFIX + "x" * 5120)


def test_failed_expression_when_no_message(vap):
    result = run(vap, [{"expression": "  object.data.a == 'z'  ", "messageExpression": "''"}])
    assert result["status"]["message"].endswith(PREFIX + "failed expression: object.data.a == 'z'")


def test_evaluation_error_fail_denies_with_server_text(vap):
    result = run(vap, [{"expression": "object.data.missingKey == 'x'"}])
    assert result["allowed"] is False
    assert result["status"]["message"].endswith(
        PREFIX + "expression 'object.data.missingKey == 'x'' resulted in error: no such key: missingKey"
    )
    assert vap.tuples(result)[0]["outcome"] == "error"


def test_evaluation_error_ignore_admits(vap):
    result = run(vap, [{"expression": "object.data.missingKey == 'x'"}], failure_policy="Ignore")
    assert result["allowed"] is True
    record = vap.tuples(result)[0]
    assert record["outcome"] == "error" and record["ignored"] is True


def test_warn_action_gives_warning_and_admits(vap):
    result = run(vap, [{"expression": "false", "message": "careful"}], actions=["Warn"])
    assert result["allowed"] is True
    assert result["warnings"] == ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': careful"]
    assert result["kubectl"]["text"].startswith("Warning: Validation failed")


def test_audit_action_records_validation_failure(vap):
    result = run(
        vap, [{"expression": "true"}, {"expression": "false", "message": "audited"}], actions=["Warn", "Audit"]
    )
    assert result["allowed"] is True
    failures = json.loads(result["auditAnnotations"]["validation.policy.admission.k8s.io/validation_failure"])
    assert failures == [
        {
            "message": "audited",
            "policy": "p",
            "binding": "b",
            "expressionIndex": 1,
            "validationActions": ["Warn", "Audit"],
        }
    ]
    assert result["auditEvent"]["annotations"]["validation.policy.admission.k8s.io/validation_failure"]
    assert vap.tuples(result)[0]["outcome"] == "warned"


def test_non_compiling_policy_is_refused_like_kubectl_apply(vap):
    result = run(vap, [{"expression": "object.data.a =="}])
    assert result["allowed"] is True and result["policies"] == []
    located = [e for e in result["errors"] if e.get("path") == "spec.validations[0].expression"]
    assert located and located[0]["kind"] == "ValidatingAdmissionPolicy" and located[0]["severity"] == "error"
    assert "compilation failed: ERROR: <input>:1:" in located[0]["message"]


def test_compile_error_reported_when_validation_runs(vap):
    result = run(vap, [{"expression": "object.data.a =="}], mode="report")
    assert result["allowed"] is False
    assert "compilation error: compilation failed: ERROR: <input>:1:" in result["status"]["message"]
    located = [e for e in result["errors"] if e.get("path") == "spec.validations[0].expression"]
    assert located and located[0]["kind"] == "ValidatingAdmissionPolicy"


def test_non_bool_validation_is_a_compile_error(vap):
    result = run(vap, [{"expression": "1 + 1"}], mode="report")
    assert result["status"]["message"].endswith(PREFIX + "compilation error: must evaluate to bool but got int")
    refused = run(vap, [{"expression": "1 + 1"}])
    assert any(e.get("message", "").endswith("must evaluate to bool but got int") for e in refused["errors"])


def test_params_undeclared_without_param_kind(vap):
    result = run(vap, [{"expression": "params == null"}], mode="report")
    assert "compilation error: compilation failed:" in result["status"]["message"]
    assert "undeclared reference to 'params'" in result["status"]["message"]


def test_request_and_namespace_object_as_the_server_binds_them(vap):
    ns = vap.namespace(labels={"env": "prod"}, managedFields=[{"manager": "kubectl"}], uid="u-1")
    validations = [
        {"expression": "request.uid == ''"},
        {"expression": "request.kind.kind == 'ConfigMap' && request.requestKind.kind == 'ConfigMap'"},
        {"expression": "!has(request.subResource) && request.operation == 'CREATE'"},
        {"expression": "namespaceObject.metadata.labels.env == 'prod'"},
        {"expression": "!has(namespaceObject.metadata.managedFields) && namespaceObject.metadata.uid == 'u-1'"},
        {"expression": "oldObject == null"},
    ]
    docs = [vap.policy(validations=validations), vap.binding(), ns]
    result = simulate(docs, vap.create(vap.configmap()))
    assert result["allowed"] is True, result["policies"][0]["trace"]["validations"]


def test_warnings_are_deduplicated_and_truncated_like_the_warning_recorder(vap):
    from evaluator.admission.response import client_warnings

    assert client_warnings(["a", "", "a", "b"]) == ["a", "b"]
    long = ["x" * 1000 + str(i) for i in range(5)]
    sent = client_warnings(long)
    assert len(sent) == 5 and all(len(w) == 256 for w in sent)
    many = ["y" * 300 + str(i) for i in range(40)]
    assert len(client_warnings(many)) == 16  # 16 x 256 characters reach the 4096 total


def test_identical_warnings_from_two_params_are_sent_once(vap):
    docs = [
        vap.policy(
            validations=[{"expression": "false", "message": "m"}], paramKind={"apiVersion": "v1", "kind": "ConfigMap"}
        ),
        vap.binding(actions=["Warn"], paramRef={"selector": {"matchLabels": {"p": "y"}}}),
        vap.configmap("p1", labels={"p": "y"}),
        vap.configmap("p2", labels={"p": "y"}),
        vap.namespace(),
    ]
    result = simulate(docs, vap.create(vap.configmap()))
    assert [r["outcome"] for r in result["policies"]] == ["warned", "warned"]
    assert result["warnings"] == ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': m"]


def test_all_validation_actions_together_in_report_mode(vap):
    docs = [
        vap.policy(validations=[{"expression": "false", "message": "I'm sorry Dave"}]),
        vap.binding(actions=["Deny", "Warn", "Audit"]),
        vap.namespace(),
    ]
    refused = simulate(docs, vap.create(vap.configmap()))
    assert refused["allowed"] is True  # Deny with Warn is refused by API validation
    assert any(e.get("path", "").startswith("spec.validationActions") for e in refused["errors"])
    result = simulate(docs, vap.create(vap.configmap()), api_validation="report")
    assert result["allowed"] is False and result["status"]["message"].endswith("denied request: I'm sorry Dave")
    assert result["warnings"] == [
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': I'm sorry Dave"
    ]
    assert json.loads(result["auditAnnotations"]["validation.policy.admission.k8s.io/validation_failure"]) == [
        {
            "message": "I'm sorry Dave",
            "policy": "p",
            "binding": "b",
            "expressionIndex": 0,
            "validationActions": ["Deny", "Warn", "Audit"],
        }
    ]


def test_audit_failures_of_two_policies_share_one_annotation(vap):
    docs = [
        vap.policy("p1", validations=[{"expression": "false", "message": "one"}]),
        vap.policy("p2", validations=[{"expression": "false", "message": "two"}]),
        vap.binding("b1", "p1", ["Audit"]),
        vap.binding("b2", "p2", ["Audit"]),
        vap.namespace(),
    ]
    result = simulate(docs, vap.create(vap.configmap()))
    assert result["allowed"] is True and result["warnings"] == []
    assert list(result["auditAnnotations"]) == ["validation.policy.admission.k8s.io/validation_failure"]
    assert [
        f["message"]
        for f in json.loads(result["auditAnnotations"]["validation.policy.admission.k8s.io/validation_failure"])
    ] == ["one", "two"]


def test_request_is_typed_unknown_fields_do_not_compile(vap):
    result = run(vap, [{"expression": "request.userInfo.foo5 == 'nope'"}], mode="report")
    assert result["status"]["message"].endswith(
        "denied request: compilation error: compilation failed: ERROR: <input>:1:17: undefined field 'foo5'\n"
        " | request.userInfo.foo5 == 'nope'\n | ................^"
    )
    assert run(vap, [{"expression": "request.userInfo.username != '' && request.dryRun == false"}])["allowed"] is True
