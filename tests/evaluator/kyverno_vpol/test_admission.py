"""ValidatingPolicies inside simulate: the vpol webhook's verdict as the API server reports it."""

from evaluator import simulate
from evaluator.policies.kyverno_vpol import evaluate, policy_report

from .helpers import create, pod, policy

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
