"""Bad input is a rule `error` with a located message, never an exception."""

import pytest

from evaluator.policies.kyverno import evaluate


def policy(validate, **rule):
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "rules": [
                {"name": "r", "match": {"any": [{"resources": {"kinds": ["Pod"]}}]}, "validate": validate, **rule}
            ]
        },
    }


REQUEST = {
    "operation": "CREATE",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "x"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    },
}


def result(p):
    [res] = evaluate([p], REQUEST)
    return res["rules"][0]


@pytest.mark.parametrize(
    "validate, fragment",
    [
        (
            {
                "deny": {
                    "conditions": {"all": [{"key": "{{ request.object.spec.nope }}", "operator": "Equals", "value": 1}]}
                }
            },
            "failed to check deny conditions: failed to substitute variables in condition key: failed to resolve "
            'request.object.spec.nope at path : JMESPath query failed: Unknown key "nope" in path',
        ),
        (
            {"deny": {"conditions": {"all": [{"key": "{{ request.object.[ }}", "operator": "Equals", "value": 1}]}}},
            "incorrect query request.object.[",
        ),
        (
            {"deny": {"conditions": {"all": [{"key": "a", "operator": "Sometimes", "value": 1}]}}},
            "failed to create handler for condition operator",
        ),
        (
            {"pattern": {"spec": {"containers": [{"image": "{{ request.object.x }}"}]}}},
            "variable substitution failed: failed to resolve request.object.x at path /spec/containers/0/image",
        ),
    ],
)
def test_errors_are_located(validate, fragment):
    r = result(policy(validate))
    assert r["result"] == "error"
    assert fragment in r["message"]


def test_unknown_anchor_is_treated_as_a_plain_key_like_kyverno():
    # `Y(k)` is not an anchor for Kyverno: it is a literal key that the resource lacks.
    r = result(policy({"pattern": {"spec": {"Y(hostPID)": True}}}))
    assert r["result"] == "fail" and "/spec/Y(hostPID)/" in r["message"]


def test_foreach_over_missing_list_is_not_applicable_and_over_scalar_is_checked():
    p = policy({"foreach": [{"list": "request.object.spec.volumes", "pattern": {"name": "v*"}}]})
    [res] = evaluate([p], REQUEST)
    assert res["rules"] == [] and res["notApplicable"] == ["r"]
    p = policy(
        {
            "foreach": [
                {
                    "list": "request.object.metadata.name",
                    "deny": {"conditions": {"all": [{"key": "{{ element }}", "operator": "Equals", "value": "x"}]}},
                }
            ]
        }
    )
    assert result(p)["result"] == "fail"


def test_precondition_error_is_error_not_crash():
    r = result(policy({"deny": {}}, preconditions={"all": [{"key": "{{ nope }}", "operator": "Equals", "value": 1}]}))
    assert r["result"] == "error" and r["message"].startswith("failed to evaluate preconditions:")


def test_garbage_documents_do_not_crash():
    assert evaluate(["not a policy", {"kind": "ClusterPolicy"}], REQUEST) == [
        {"kind": "ClusterPolicy", "policy": "", "namespace": "", "rules": [], "notApplicable": []}
    ]


@pytest.mark.parametrize(
    "policy, fragment",
    [
        ({"kind": "ClusterPolicy", "metadata": {"name": "p"}, "spec": {"rules": "nope"}}, "invalid policy:"),
        (
            {
                "kind": "ClusterPolicy",
                "metadata": {"name": "p"},
                "spec": {"rules": [{"name": "r", "match": "x", "validate": {"pattern": {}}}]},
            },
            "invalid policy:",
        ),
        (
            {
                "kind": "ClusterPolicy",
                "metadata": {"name": "p"},
                "spec": {
                    "rules": [
                        {
                            "name": "r",
                            "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                            "validate": {"foreach": [{"list": 5, "deny": {"conditions": "x"}}]},
                        }
                    ]
                },
            },
            "internal error while evaluating rule r",
        ),
        (
            {
                "kind": "ClusterPolicy",
                "metadata": {"name": "p"},
                "spec": {
                    "rules": [
                        {
                            "name": "r",
                            "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                            "validate": {"podSecurity": {"level": "restricted", "version": "2.0"}},
                        }
                    ]
                },
            },
            'failed to parse pod security api version: must be "latest" or "v1.x"',
        ),
    ],
)
def test_malformed_policies_give_error_results(policy, fragment):
    [res] = evaluate([policy], REQUEST)
    [rule] = res["rules"]
    assert rule["result"] == "error" and fragment in rule["message"]


@pytest.mark.parametrize(
    "validate",
    [
        {"message": "m", "pattern": {"metadata": {"name": "<1" + "0" * 5000}}},
        {
            "message": "m",
            "deny": {
                "conditions": {"any": [{"key": "1" + "0" * 5000 + "Gi", "operator": "GreaterThan", "value": "1Gi"}]}
            },
        },
    ],
)
def test_a_number_too_long_to_read_is_said_plainly(validate):
    """More decimal digits than Python reads (4,300): the rule's error says so, not Python's advice to call
    sys.set_int_max_str_digits, nor 'internal error'."""
    rule = result(policy(validate))
    assert rule["result"] == "error"
    assert rule["message"] == "a number of more than 4,300 digits: too long for the simulator to read"
