"""ValidatingPolicies inside simulate: the vpol webhook's verdict as the API server reports it."""

from evaluator import simulate
from evaluator.policies.kyverno_vpol import evaluate, policy_report

from .helpers import create, deployment, pod, policy

TEAM = [{"expression": "object.metadata.?labels.team.orValue('') != ''", "message": "a team label is required"}]


def test_deny_is_a_webhook_denial_with_kyvernos_text():
    result = simulate([policy(TEAM, actions=["Deny"])], create(pod()))
    assert not result["allowed"]
    assert result["status"] == {
        "code": 400,
        "reason": "",
        "message": 'admission webhook "vpol.validate.kyverno.svc-fail" denied the request: '
        "Policy p failed: a team label is required",
    }
    [entry] = result["kyverno"]
    assert (entry["kind"], entry["rules"][0]["result"]) == ("ValidatingPolicy", "fail")


def test_warn_becomes_a_warning_and_audit_only_reports():
    warned = simulate([policy(TEAM, actions=["Warn"])], create(pod()))
    assert warned["allowed"] and warned["warnings"] == ["Policy p failed: a team label is required"]
    audited = simulate([policy(TEAM, actions=["Audit"])], create(pod()))
    assert audited["allowed"] and not audited["warnings"] and audited["kyverno"][0]["rules"][0]["result"] == "fail"


def test_failure_policy_ignore_names_the_ignore_webhook_and_errors_deny():
    p = policy([{"expression": "object.nope == 1"}], failurePolicy="Ignore")
    result = simulate([p], create(pod()))
    assert result["status"]["message"] == (
        'admission webhook "vpol.validate.kyverno.svc-ignore" denied the request: '
        "Policy p error: error: no such key: nope"
    )


def test_a_namespaced_policy_applies_in_its_namespace_only():
    p = policy(TEAM, kind="NamespacedValidatingPolicy")
    p["metadata"]["namespace"] = "team-a"
    assert not simulate([p], create(pod(namespace="team-a")))["allowed"]
    other = simulate([p], create(pod(namespace="team-b")))
    assert other["allowed"] and other["kyverno"] == []
    denied = simulate([p], create(pod(namespace="team-a")))
    assert denied["status"]["message"].startswith('admission webhook "nvpol.validate.kyverno.svc-fail"')


def test_admission_disabled_policies_do_not_run_at_admission():
    p = policy(TEAM, evaluation={"admission": {"enabled": False}})
    assert simulate([p], create(pod()))["allowed"]


def test_compile_errors_are_listed_with_their_path():
    p = policy([{"expression": "object.metadata.name ==", "message": "m"}])
    errors = [e for e in simulate([p], create(pod()))["errors"] if e.get("kind") == "ValidatingPolicy"]
    assert errors and errors[0]["path"] == "spec.validations[0].expression"


def test_policy_report_names_the_source_and_process():
    p = policy(TEAM, actions=["Audit"])
    p["metadata"]["annotations"] = {"policies.kyverno.io/severity": "high"}
    obj = pod()
    report = policy_report([p], evaluate([p], create(obj)), obj, now=1)
    [entry] = report["results"]
    assert report["kind"] == "PolicyReport" and report["summary"]["fail"] == 1
    assert (entry["source"], entry["policy"], entry["rule"], entry["severity"]) == (
        "KyvernoValidatingPolicy",
        "p",
        "",
        "high",
    )
    assert entry["properties"] == {"cel.validationIndex": "0", "process": "background scan"}


def test_version_differences_follow_kyvernos_crds():
    old = policy(TEAM, version="v1alpha1")
    warnings = [e for e in simulate([old], create(pod()))["errors"] if e.get("kind") == "ValidatingPolicy"]
    assert [(w["severity"], w["name"], w["message"]) for w in warnings] == [
        (
            "warning",
            "p",
            "policies.kyverno.io/v1alpha1 ValidatingPolicy is deprecated; use policies.kyverno.io/v1 ValidatingPolicy",
        )
    ]
    namespaced = policy(TEAM, kind="NamespacedValidatingPolicy", version="v1alpha1")
    result = evaluate([namespaced], create(pod()))
    assert result[0]["rules"][0]["message"] == (
        'no matches for kind "NamespacedValidatingPolicy" in version "policies.kyverno.io/v1alpha1"'
    )


DIVIDE = [{"name": "error", "expression": "2 / 0 == 1"}]


def test_a_webhook_match_condition_error_is_refused_by_the_api_server():
    """chainsaw validating-policies/match-conditions/failure-policy/default: the API server's own wording."""
    p = policy([{"expression": "false", "message": "Always false"}], resources=("deployments",), group="apps")
    p["spec"]["matchConditions"] = DIVIDE
    result = simulate([p], create(deployment(name="deployment")))
    assert result["status"]["code"] == 403
    assert result["status"]["message"] == (
        "deployments.apps \"deployment\" is forbidden: expression '2 / 0 == 1' resulted in error: division by zero"
    )
    [entry] = result["kyverno"]
    assert entry["rules"] == [] and entry["refused"].startswith("expression '2 / 0 == 1'")


def test_a_webhook_match_condition_error_with_ignore_skips_the_webhook():
    p = policy([{"expression": "false", "message": "Always false"}], failurePolicy="Ignore")
    p["spec"]["matchConditions"] = DIVIDE
    assert simulate([p], create(pod()))["allowed"]


def test_match_conditions_using_kyverno_libraries_stay_on_kyvernos_side():
    """One condition the API server cannot compile keeps every condition in Kyverno's engine and wording."""
    p = policy([{"expression": "false", "message": "Always false"}])
    p["spec"]["matchConditions"] = DIVIDE + [{"name": "lib", "expression": "hash.md5('a') != ''"}]
    result = simulate([p], create(pod()))
    assert result["status"]["code"] == 400
    assert "Policy p error: failed to load context: division by zero" in result["status"]["message"]


def test_pod_policies_wrap_webhook_conditions_for_autogen():
    from evaluator.policies.kyverno_vpol.webhook_conditions import webhook_conditions

    p = policy([{"expression": "true"}])
    p["spec"]["matchConditions"] = DIVIDE + [{"name": "ns", "expression": "namespaceObject.metadata.name != ''"}]
    assert webhook_conditions(p["spec"]) == [
        ("autogen-error", "!((object.apiVersion == 'v1' && object.kind =='Pod')) || (2 / 0 == 1)")
    ]


def test_type_checking_warns_like_a_vap_and_leaves_kyverno_libraries_alone():
    p = policy(
        [
            {"expression": "object.spec.replicass > 1"},
            {"expression": "resource.Get('v1', 'configmaps', 'd', 'x') != null"},
        ],
        resources=("deployments",),
        group="apps",
    )
    report = simulate([p], create(deployment()))["typeChecking"]["ValidatingPolicy/p"]
    assert report["typesChecked"] == [{"group": "apps", "version": "v1", "kind": "Deployment"}]
    assert [(d["fieldRef"], d["message"]) for d in report["diagnostics"]] == [
        ("spec.validations[0].expression", "undefined field 'replicass'")
    ]


def test_each_policy_carries_the_expression_trace_a_vap_has():
    p = policy(
        [{"expression": "variables.n == 1", "messageExpression": "'n is ' + string(variables.n)"}],
        variables=[{"name": "n", "expression": "size(object.spec.containers)"}],
        matchConditions=[{"name": "always", "expression": "true"}],
    )
    [entry] = simulate([p], create(pod()))["kyverno"]
    trace = entry["trace"]
    assert trace["matchConditions"][0] | {"cost": 0} == {
        "name": "always",
        "expression": "true",
        "value": True,
        "type": "bool",
        "cost": 0,
        "error": None,
    }
    [variable] = trace["variables"]
    assert (variable["name"], variable["value"], variable["type"]) == ("n", 1, "int") and variable["cost"] > 0
    [validation] = trace["validations"]
    assert (validation["index"], validation["value"], validation["error"]) == (0, True, None)
    failing = policy([{"expression": "object.nope == 1"}])
    [entry] = simulate([failing], create(pod()))["kyverno"]
    assert entry["trace"]["validations"][0]["error"] == "no such key: nope"
