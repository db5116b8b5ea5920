"""Kyverno policies inside `simulate`: a validating webhook beside the admission policies."""

from evaluator import simulate

POLICY = {
    "apiVersion": "kyverno.io/v1",
    "kind": "ClusterPolicy",
    "metadata": {"name": "require-team"},
    "spec": {
        "validationFailureAction": "Enforce",
        "rules": [
            {
                "name": "check-team",
                "match": {"any": [{"resources": {"kinds": ["ConfigMap"]}}]},
                "validate": {
                    "message": "label 'team' is required",
                    "pattern": {"metadata": {"labels": {"team": "?*"}}},
                },
            }
        ],
    },
}
CEL_POLICY = {
    "apiVersion": "kyverno.io/v1",
    "kind": "ClusterPolicy",
    "metadata": {"name": "few-replicas"},
    "spec": {
        "validationFailureAction": "Enforce",
        "rules": [
            {
                "name": "replicas",
                "match": {"any": [{"resources": {"kinds": ["Deployment"], "operations": ["CREATE"]}}]},
                "validate": {
                    "cel": {
                        "expressions": [{"expression": "object.spec.replicas <= 3", "message": "at most 3 replicas"}]
                    }
                },
            }
        ],
    },
}


def configmap(labels):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "default", "labels": labels},
    }


def test_an_enforce_failure_denies_as_the_kyverno_webhook():
    result = simulate([POLICY], configmap({}))
    assert result["allowed"] is False
    assert result["status"]["code"] == 400
    assert result["status"]["message"].startswith('admission webhook "validate.kyverno.svc-fail" denied the request: ')
    assert "require-team" in result["status"]["message"]
    assert [r["result"] for r in result["kyverno"][0]["rules"]] == ["fail"]
    assert result["response"]["response"]["allowed"] is False


def test_a_passing_resource_is_admitted_with_the_rule_results():
    result = simulate([POLICY], configmap({"team": "web"}))
    assert result["allowed"] is True
    assert result["kyverno"][0]["rules"][0]["result"] == "pass"


def test_the_vap_generated_from_a_cel_rule_is_simulated_beside_it():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 5},
    }
    result = simulate([CEL_POLICY], deployment)
    assert result["allowed"] is False
    (compared,) = result["kyvernoGeneratedVAPs"]
    assert compared["policy"] == "few-replicas"
    assert compared["generated"]["policy"]["kind"] == "ValidatingAdmissionPolicy"
    assert compared["allowed"] is False
    assert "at most 3 replicas" in compared["status"]["message"]
