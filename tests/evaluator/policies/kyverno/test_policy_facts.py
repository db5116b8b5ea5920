"""What the engine reads off a policy once (policy_facts, match.all_apply, rule_validator) gives the answers
it gave when each request asked rule by rule."""

import yaml

from evaluator.policies.kyverno import evaluate
from evaluator.policies.kyverno.match import MatchInput, RequestInfo, all_apply, applies

RULES = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: by-kind
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  validationFailureAction: Enforce
  rules:
  - name: pods
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate: {pattern: {metadata: {name: "?*"}}}
  - name: services
    match: {any: [{resources: {kinds: [Service]}}]}
    validate: {pattern: {metadata: {name: "?*"}}}
  - name: pod-updates
    match: {any: [{resources: {kinds: [Pod], operations: [UPDATE]}}]}
    validate: {pattern: {metadata: {name: "?*"}}}
""")


def _request(kind, operation="CREATE", name="a"):
    obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "default"}}
    request = {"operation": operation, "object": obj, "kind": {"group": "", "version": "v1", "kind": kind}}
    if operation == "UPDATE":
        request["oldObject"] = obj
    return request


def _match_input(kind, operation):
    obj = _request(kind)["object"]
    return MatchInput(obj, ("", "v1", kind), "", operation, namespace_labels={}, info=RequestInfo())


def _applied(result):
    return [r["rule"] for r in result["rules"]], result["notApplicable"]


def test_rules_decided_once_per_kind_and_operation_agree_with_each_rule_asked_alone():
    rules = RULES["spec"]["rules"]
    for kind, operation in [("Pod", "CREATE"), ("Service", "CREATE"), ("Pod", "UPDATE"), ("ConfigMap", "CREATE")]:
        m = _match_input(kind, operation)
        assert all_apply(RULES, rules, m) == [applies(rule, m) for rule in rules]
    assert _applied(evaluate([RULES], _request("Pod"))[0]) == (["pods"], ["services", "pod-updates"])
    assert _applied(evaluate([RULES], _request("Service"))[0]) == (["services"], ["pods", "pod-updates"])
    assert _applied(evaluate([RULES], _request("Pod", "UPDATE"))[0]) == (["pods", "pod-updates"], ["services"])


def test_a_rule_that_reads_more_than_kinds_is_asked_rule_by_rule():
    policy = yaml.safe_load(yaml.safe_dump(RULES))
    policy["spec"]["rules"][1]["exclude"] = {"any": [{"resources": {"names": ["skip-*"]}}]}
    m = _match_input("Service", "CREATE")
    assert all_apply(policy, policy["spec"]["rules"], m) is None
    assert _applied(evaluate([policy], _request("Service", name="skip-me"))[0]) == (
        [],
        ["pods", "services", "pod-updates"],
    )
    assert _applied(evaluate([policy], _request("Service", name="keep"))[0]) == (
        ["services"],
        ["pods", "pod-updates"],
    )


def test_apply_one_stops_before_a_later_malformed_rule_is_asked():
    """applyRules: One ends at the first rule that passes; a later rule's malformed match is never read (as
    when each rule was asked in turn), while without applyRules it is, and the policy is reported invalid."""
    text = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: first-wins}
spec:
  validationFailureAction: Enforce
  applyRules: One
  rules:
  - name: first
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate: {pattern: {metadata: {name: "?*"}}}
  - name: broken
    match: {any: [{resources: {kinds: [Pod], operations: 5}}]}
    validate: {pattern: {metadata: {name: "?*"}}}
"""
    [result] = evaluate([yaml.safe_load(text)], _request("Pod"))
    assert [(r["rule"], r["result"]) for r in result["rules"]] == [("first", "pass")]
    [result] = evaluate([yaml.safe_load(text.replace("applyRules: One", ""))], _request("Pod"))
    assert result["rules"][0]["result"] == "error"
    assert result["rules"][0]["message"] == "invalid policy: TypeError: argument of type 'int' is not iterable"


def test_variables_change_the_resource_the_applying_rules_check():
    """The CLI reads the resource back from the context, where variables may have changed it."""
    values = {"variables": {"request.object.metadata.name": ""}}
    [result] = evaluate([RULES], _request("Pod"), values=values)
    assert _applied(result) == (["pods"], ["services", "pod-updates"])
    assert result["rules"][0]["message"] == "validation error: rule pods failed at path /metadata/name/"


def test_one_foreach_shared_by_two_rules_speaks_for_each_rule():
    """A YAML alias makes both rules hold the same foreach map; each rule's validator is its own."""
    policy = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: shared-foreach}
spec:
  validationFailureAction: Enforce
  rules:
  - name: one
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      foreach: &each
      - list: request.object.spec.containers
        deny: {conditions: {any: [{key: "{{ element.image }}", operator: Equals, value: bad}]}}
  - name: two
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate: {foreach: *each}
""")
    rules = policy["spec"]["rules"]
    assert rules[0]["validate"]["foreach"] is rules[1]["validate"]["foreach"]
    request = _request("Pod")
    request["object"]["spec"] = {"containers": [{"name": "c", "image": "bad"}]}
    [result] = evaluate([policy], request)
    assert [(r["rule"], r["message"]) for r in result["rules"]] == [
        ("one", "validation failure: validation error: rule one failed"),
        ("two", "validation failure: validation error: rule two failed"),
    ]
