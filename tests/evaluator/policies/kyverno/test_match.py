"""match/exclude blocks and autogen rule computation."""

from evaluator.policies.kyverno.autogen import compute_rules
from evaluator.policies.kyverno.match import MatchInput, RequestInfo, check_kind, matches_rule, parse_kind_selector

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "prod", "labels": {"app": "web"}, "annotations": {"team": "a"}},
}


def m(resource=POD, op="CREATE", info=None, ns_labels=None, gvk=("", "v1", "Pod")):
    return MatchInput(
        resource=resource,
        gvk=gvk,
        subresource="",
        operation=op,
        namespace_labels=ns_labels or {},
        info=info or RequestInfo(),
    )


def rule(match, exclude=None):
    r = {"name": "r", "match": match}
    if exclude:
        r["exclude"] = exclude
    return r


def test_kind_selector_forms():
    assert parse_kind_selector("Pod") == ("*", "*", "Pod", "")
    assert parse_kind_selector("v1/Pod") == ("*", "v1", "Pod", "")
    assert parse_kind_selector("apps/v1/Deployment") == ("apps", "v1", "Deployment", "")
    assert parse_kind_selector("Pod/exec") == ("*", "*", "Pod", "exec")
    assert check_kind(["apps/*/Deploy*"], ("apps", "v1", "Deployment"), "")
    assert not check_kind(["batch/v1/Job"], ("apps", "v1", "Deployment"), "")


def test_any_all_and_fields():
    assert matches_rule(rule({"any": [{"resources": {"kinds": ["Pod"], "names": ["web-*"]}}]}), m()) is None
    assert matches_rule(rule({"any": [{"resources": {"kinds": ["Pod"], "namespaces": ["dev"]}}]}), m()) is not None
    assert (
        matches_rule(
            rule(
                {
                    "all": [
                        {"resources": {"kinds": ["Pod"]}},
                        {"resources": {"selector": {"matchLabels": {"app": "w*"}}}},
                    ]
                }
            ),
            m(),
        )
        is None
    )
    assert matches_rule(rule({"any": [{"resources": {"kinds": ["Pod"], "operations": ["UPDATE"]}}]}), m()).endswith(
        "no resource matched"
    )
    assert matches_rule(rule({"any": [{"resources": {"annotations": {"team": "?"}}}]}), m()) is None
    ns = {
        "any": [
            {
                "resources": {
                    "kinds": ["Pod"],
                    "namespaceSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]},
                }
            }
        ]
    }
    assert matches_rule(rule(ns), m(ns_labels={"env": "prod"})) is None
    assert matches_rule(rule(ns), m(ns_labels={"env": "dev"})) is not None


def test_exclude_and_subjects():
    info = RequestInfo(
        username="system:serviceaccount:kube-system:ctrl", groups=["system:serviceaccounts"], cluster_roles=["admin"]
    )
    excl = {"any": [{"subjects": [{"kind": "ServiceAccount", "namespace": "kube-system", "name": "*"}]}]}
    assert "excluded" in matches_rule(rule({"any": [{"resources": {"kinds": ["Pod"]}}]}, excl), m(info=info))
    assert matches_rule(rule({"any": [{"resources": {"kinds": ["Pod"]}}]}, excl), m()) is None
    assert (
        matches_rule(rule({"any": [{"clusterRoles": ["admin"], "resources": {"kinds": ["Pod"]}}]}), m(info=info))
        is None
    )
    # no user info at all: user criteria of match blocks are ignored, as in `kyverno apply`
    assert matches_rule(rule({"any": [{"clusterRoles": ["admin"], "resources": {"kinds": ["Pod"]}}]}), m()) is None


POLICY = {
    "kind": "ClusterPolicy",
    "metadata": {"name": "p"},
    "spec": {
        "rules": [
            {
                "name": "check",
                "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                "validate": {"message": "m", "pattern": {"spec": {"containers": [{"image": "!*:latest"}]}}},
            }
        ]
    },
}


def test_autogen_rules_per_kind():
    assert [r["name"] for r in compute_rules(POLICY, "Pod")] == ["check"]
    deploy = compute_rules(POLICY, "Deployment")
    assert [r["name"] for r in deploy] == ["check", "autogen-check"]
    assert deploy[1]["match"]["any"][0]["resources"]["kinds"] == ["apps/v1/Deployment"]
    assert deploy[1]["validate"]["pattern"] == {
        "spec": {"template": {"spec": {"containers": [{"image": "!*:latest"}]}}}
    }
    cron = compute_rules(POLICY, "CronJob")
    assert [r["name"] for r in cron] == ["check", "autogen-cronjob-check"]
    assert cron[1]["validate"]["pattern"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]


def test_autogen_rewrites_request_object_paths_and_respects_annotation():
    policy = {
        "kind": "ClusterPolicy",
        "metadata": {"name": "p", "annotations": {"pod-policies.kyverno.io/autogen-controllers": "Deployment"}},
        "spec": {
            "rules": [
                {
                    "name": "d",
                    "match": {"resources": {"kinds": ["Pod"]}},
                    "validate": {
                        "deny": {
                            "conditions": [
                                {"key": "{{request.object.spec.hostPID}}", "operator": "Equals", "value": True}
                            ]
                        }
                    },
                }
            ]
        },
    }
    rules = compute_rules(policy, "Deployment")
    assert rules[1]["validate"]["deny"]["conditions"][0]["key"] == "{{request.object.spec.template.spec.hostPID}}"
    assert [r["name"] for r in compute_rules(policy, "StatefulSet")] == ["d"]


def test_no_autogen_when_a_rule_selects_by_name():
    policy = {
        "kind": "ClusterPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "rules": [
                {"name": "x", "match": {"any": [{"resources": {"kinds": ["Pod"], "names": ["a"]}}]}, "validate": {}}
            ]
        },
    }
    assert [r["name"] for r in compute_rules(policy, "Deployment")] == ["x"]


def test_a_condition_block_lists_every_failed_check_in_kyverno_order():
    block = {
        "resources": {
            "kinds": ["Deployment"],
            "name": "db",
            "names": ["db-*"],
            "namespaces": ["dev"],
            "annotations": {"team": "b"},
            "selector": {"matchLabels": {"app": "db"}},
        },
        "roles": ["admin"],
        "subjects": [{"kind": "User", "name": "root"}],
    }
    reason = matches_rule(rule(block), m(info=RequestInfo(username="u", roles=["viewer"])))
    assert reason == (
        "rule r not matched:"
        "\n 1. kind does not match ['Deployment']"
        "\n 2. name does not match"
        "\n 3. none of the names match"
        "\n 4. namespace does not match"
        "\n 5. annotations does not match"
        "\n 6. selector does not match"
        "\n 7. user info does not match roles for the given conditionBlock"
        "\n 8. user info does not match subject for the given conditionBlock"
    )


def test_a_wrong_operation_is_the_only_reason_given():
    block = {"resources": {"kinds": ["Deployment"], "operations": ["DELETE"]}}
    assert matches_rule(rule(block), m()) == "rule r not matched:\n 1. operation does not match"


def test_invalid_selector_operators_and_empty_in_values_are_parse_errors():
    def reason(expression):
        return matches_rule(rule({"resources": {"selector": {"matchExpressions": [expression]}}}), m())

    assert reason({"key": "a", "operator": "In"}).endswith(
        "failed to parse selector: values: Invalid value: []string(nil): for 'in', 'notin' operators, "
        "values set can't be empty"
    )
    assert reason({"key": "a", "operator": "Has"}).endswith(
        'failed to parse selector: "Has" is not a valid label selector operator'
    )
    assert (
        matches_rule(
            rule({"resources": {"selector": {"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]}}}), m()
        )
        is None
    )
