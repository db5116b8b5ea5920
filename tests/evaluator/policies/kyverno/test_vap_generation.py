"""Generating a ValidatingAdmissionPolicy + binding from a `validate.cel` ClusterPolicy (Kyverno's builder;
the seed shows an older naming without the `cpol-` prefix and the API server's defaults)."""

import yaml

from evaluator.policies.kyverno.vap_generation import generate

POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: disallow-host-path}
spec:
  validationFailureAction: Enforce
  rules:
    - name: host-path
      match:
        any:
        - resources:
            kinds: [Deployment]
      validate:
        cel:
          expressions:
            - expression: "!has(object.spec.template.spec.volumes) || object.spec.template.spec.volumes.all(volume, !has(volume.hostPath))"
              message: "HostPath volumes are forbidden."
""")


def test_generated_policy_and_binding():
    out = generate(POLICY)
    vap, binding = out["policy"], out["binding"]
    assert vap["metadata"]["name"] == "cpol-disallow-host-path"
    assert vap["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "kyverno"}
    assert vap["spec"]["matchConstraints"] == {
        "resourceRules": [
            {
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "resources": ["deployments"],
                "operations": ["CREATE", "UPDATE", "CONNECT", "DELETE"],
            }
        ]
    }
    assert vap["spec"]["validations"] == POLICY["spec"]["rules"][0]["validate"]["cel"]["expressions"]
    assert binding["metadata"]["name"] == "cpol-disallow-host-path-binding"
    assert binding["spec"] == {"policyName": "cpol-disallow-host-path", "validationActions": ["Deny"]}


def test_namespaces_become_a_namespace_selector_and_audit_becomes_audit_warn():
    policy = yaml.safe_load(yaml.safe_dump(POLICY))
    policy["spec"]["validationFailureAction"] = "Audit"
    policy["spec"]["rules"][0]["match"]["any"][0]["resources"].update(kinds=["Pod"], namespaces=["prod"])
    out = generate(policy)
    mc = out["policy"]["spec"]["matchConstraints"]
    assert mc["resourceRules"][0]["resources"] == ["pods", "pods/ephemeralcontainers"]
    assert mc["namespaceSelector"]["matchExpressions"][0]["values"] == ["prod"]
    assert out["binding"]["spec"]["validationActions"] == ["Audit", "Warn"]


def test_policies_that_cannot_be_generated_say_why():
    policy = yaml.safe_load(yaml.safe_dump(POLICY))
    policy["spec"]["rules"].append(dict(policy["spec"]["rules"][0], name="second"))
    assert generate(policy) == {
        "skipped": "skip generating ValidatingAdmissionPolicy: multiple rules are not applicable."
    }
    policy["spec"]["rules"] = [
        {"name": "p", "match": {"any": [{"resources": {"kinds": ["Pod"]}}]}, "validate": {"pattern": {"spec": {}}}}
    ]
    assert generate(policy) == {"skipped": "skip generating ValidatingAdmissionPolicy for non CEL rules."}


def _with_rule(**changes):
    policy = yaml.safe_load(yaml.safe_dump(POLICY))
    policy["spec"]["rules"][0].update(changes)
    return policy


def test_match_exclude_and_exception_shapes_that_cannot_be_generated_say_why():
    skip = "skip generating ValidatingAdmissionPolicy: "
    two_alls = {"all": [{"resources": {"kinds": ["Pod"]}}, {"resources": {"kinds": ["Job"]}}]}
    assert generate(_with_rule(exclude=two_alls)) == {
        "skipped": skip + "multiple 'all' in the exclude block is not applicable."
    }
    assert generate(_with_rule(match={"resources": {"kinds": ["Pod"]}, "roles": ["admin"]})) == {
        "skipped": skip + "Roles / ClusterRoles / Subjects in `any/all` is not applicable."
    }
    assert generate(_with_rule(exclude={"any": [{"resources": {"selector": {}}}]})) == {
        "skipped": skip + "NamespaceSelector / ObjectSelector in the exclude block is not applicable."
    }
    overrides = {"action": "Audit", "namespaces": ["dev"]}
    assert generate(
        _with_rule(validate={**POLICY["spec"]["rules"][0]["validate"], "failureActionOverrides": [overrides]})
    ) == {"skipped": skip + "Namespaces in validationFailureActionOverrides is not applicable."}
    exception = {"spec": {"exceptions": [{"policyName": "p", "ruleNames": ["a", "b"]}]}}
    assert generate(POLICY, [exception]) == {
        "skipped": skip + "multiple ruleNames in PolicyException is not applicable."
    }
    exception = {"spec": {"exceptions": [{"policyName": "p", "ruleNames": ["a"]}], "match": two_alls}}
    assert generate(POLICY, [exception]) == {
        "skipped": skip + "multiple 'all' in the PolicyException's match block is not applicable."
    }


def test_exceptions_and_excludes_become_exclude_resource_rules():
    exception = {
        "spec": {
            "exceptions": [{"policyName": "disallow-host-path", "ruleNames": ["host-path"]}],
            "match": {"any": [{"resources": {"kinds": ["Job"]}}]},
        }
    }
    out = generate(_with_rule(exclude={"any": [{"resources": {"kinds": ["StatefulSet"]}}]}), [exception])
    assert out["policy"]["spec"]["matchConstraints"]["excludeResourceRules"] == [
        {
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "resources": ["statefulsets"],
            "operations": ["CREATE", "UPDATE", "CONNECT", "DELETE"],
        },
        {
            "apiGroups": ["batch"],
            "apiVersions": ["v1"],
            "resources": ["jobs"],
            "operations": ["CREATE", "UPDATE", "CONNECT", "DELETE"],
        },
    ]
