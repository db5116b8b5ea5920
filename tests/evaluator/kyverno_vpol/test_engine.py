"""One ValidatingPolicy evaluation: statuses and Kyverno's messages."""

from evaluator.policies.kyverno_vpol import evaluate

from .helpers import create, deployment, policy, pod


def _rules(documents, request):
    [result] = [r for r in evaluate(documents, request) if r["policy"] == "p"]
    return [(r["rule"], r["result"], r["message"]) for r in result["rules"]]


def test_pass_fail_and_the_default_message_with_the_failing_index():
    p = policy([{"expression": "true"}, {"expression": "object.metadata.name == 'x'"}])
    assert _rules([p], create(pod())) == [("", "fail", "CEL expression validation failed at index 1")]
    assert _rules([p], create(pod(name="x"))) == [("", "pass", "success")]


def test_message_expression_and_its_failure_text():
    p = policy([{"expression": "false", "messageExpression": "'bad ' + object.metadata.name"}])
    assert _rules([p], create(pod()))[0][2] == "bad web"
    p = policy([{"expression": "false", "message": "m", "messageExpression": "object.nope"}])
    assert _rules([p], create(pod()))[0][2] == "failed to evaluate message expression: no such key: nope"


def test_an_evaluation_error_is_an_error_with_cel_text():
    p = policy([{"expression": "object.spec.nothing == 1"}])
    assert _rules([p], create(pod())) == [("", "error", "error: no such key: nothing")]


def test_match_conditions_skip_and_their_errors_follow_the_failure_policy():
    p = policy([{"expression": "false"}], matchConditions=[{"name": "m", "expression": "object.metadata.name == 'x'"}])
    assert _rules([p], create(pod())) == [("", "skip", "skip")]
    broken = [{"name": "m", "expression": "object.nope == 1"}]
    assert _rules([policy([{"expression": "false"}], matchConditions=broken)], create(pod())) == [
        ("evaluation", "error", "failed to load context: no such key: nope")
    ]
    ignore = policy([{"expression": "false"}], matchConditions=broken, failurePolicy="Ignore")
    assert _rules([ignore], create(pod())) == [("", "skip", "skip")]


def test_variables_are_lazy_and_shared():
    p = policy(
        [{"expression": "variables.name == 'web'"}],
        variables=[
            {"name": "broken", "expression": "object.nope"},
            {"name": "name", "expression": "object.metadata.name"},
        ],
    )
    assert _rules([p], create(pod())) == [("", "pass", "success")]


def test_a_policy_exception_exempts_with_its_key_and_report_result():
    p = policy([{"expression": "false"}])
    exc = {
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "PolicyException",
        "metadata": {"name": "allow-web", "namespace": "team"},
        "spec": {
            "policyRefs": [{"name": "p", "kind": "ValidatingPolicy"}],
            "matchConditions": [{"name": "web", "expression": "object.metadata.name == 'web'"}],
        },
    }
    assert _rules([p, exc], create(pod())) == [
        ("exception", "skip", "rule is skipped due to policy exception: team/allow-web")
    ]
    exc["spec"]["reportResult"] = "pass"
    assert _rules([p, exc], create(pod()))[0][:2] == ("exception", "pass")
    assert _rules([p, exc], create(pod(name="other")))[0][1] == "fail"


def test_autogen_variants_evaluate_pod_controllers():
    p = policy([{"expression": "object.metadata.?labels.team.orValue('') != ''", "message": "team label"}])
    [result] = evaluate([p], create(deployment()))
    assert [(r["autogen"], r["result"]) for r in result["rules"]] == [("defaults", "fail")]
    assert result["notApplicable"] == ["p", "autogen-cronjobs"]
    [result] = evaluate([p], create(deployment(labels={"team": "a"})))
    assert result["rules"][0]["result"] == "pass"


def test_a_compile_error_fails_the_whole_policy_with_the_field_path():
    p = policy([{"expression": "object.metadata.name ==", "message": "m"}])
    [(rule, status, message)] = _rules([p], create(pod()))
    assert status == "error"
    assert message.startswith(
        "failed to compile policy p ([<nil>: Internal error: validating policy compiler 1.0 "
        "error: failed to compile policy, spec.validations[0].expression: Invalid value: "
    )
    p = policy([{"expression": "'text'"}])
    assert "output is expected to be of type bool" in _rules([p], create(pod()))[0][2]


def test_json_mode_sees_the_payload_as_object():
    from evaluator.policies.kyverno_vpol import evaluate_json

    p = policy([{"expression": "object.replicas < 3", "message": "too many"}], evaluation={"mode": "JSON"})
    del p["spec"]["matchConstraints"]
    [result] = evaluate_json([p], {"replicas": 5})
    assert (result["mode"], result["rules"][0]["result"], result["rules"][0]["message"]) == ("JSON", "fail", "too many")


def test_envoy_and_http_policies_do_not_run_on_admission_requests():
    p = policy([{"expression": "envoy.Allowed().Response()"}], evaluation={"mode": "Envoy"})
    [result] = evaluate([p], create(pod()))
    assert result["rules"] == [] and "do not run it" in result["note"]


def test_envoy_and_http_policies_decide_on_check_requests():
    from evaluator.policies.kyverno_vpol import evaluate_json

    envoy = policy(
        [
            {
                "expression": "object.attributes.request.http.path == '/ok' ? null : envoy.Denied(403)"
                ".WithBody('no').Response()"
            },
            {"expression": "envoy.Allowed().WithHeader('x', 'y').Response()"},
        ],
        evaluation={"mode": "Envoy"},
    )
    request = {"attributes": {"request": {"http": {"path": "/admin"}}}}
    [result] = evaluate_json([envoy], request, "envoy")
    assert (result["rules"][0]["result"], result["rules"][0]["message"]) == (
        "fail",
        "request denied with status code 403",
    )
    request["attributes"]["request"]["http"]["path"] = "/ok"
    assert evaluate_json([envoy], request, "envoy")[0]["rules"][0]["message"] == "request allowed"
    http = policy([{"expression": "http.Denied('not allowed').Response()"}], name="h", evaluation={"mode": "HTTP"})
    [result] = evaluate_json([http], {"attributes": {}}, "http")
    assert result["rules"][0]["message"] == "request denied, reason: not allowed"
    nothing = policy([{"expression": "null"}], name="n", evaluation={"mode": "HTTP"})
    assert evaluate_json([nothing], {}, "http")[0]["rules"][0]["result"] == "skip"


def test_jwt_decode_checks_the_signature():
    import base64
    import hashlib
    import hmac
    import json as _json
    from evaluator.policies.kyverno_vpol import evaluate_json

    def seg(data):
        return base64.urlsafe_b64encode(_json.dumps(data).encode()).rstrip(b"=").decode()

    head, claims = seg({"alg": "HS256", "typ": "JWT"}), seg({"role": "admin"})
    sig = base64.urlsafe_b64encode(hmac.new(b"secret", f"{head}.{claims}".encode(), hashlib.sha256).digest())
    token = f"{head}.{claims}.{sig.rstrip(b'=').decode()}"
    p = policy(
        [
            {
                "expression": "jwt.Decode(object.token, 'secret').Valid && "
                "jwt.Decode(object.token, 'secret').Claims.role == 'admin' ? envoy.Allowed().Response()"
                " : envoy.Denied(401).Response()"
            }
        ],
        evaluation={"mode": "Envoy"},
    )
    assert evaluate_json([p], {"token": token}, "envoy")[0]["rules"][0]["result"] == "pass"
    assert evaluate_json([p], {"token": token[:-2] + "xx"}, "envoy")[0]["rules"][0]["result"] == "fail"
