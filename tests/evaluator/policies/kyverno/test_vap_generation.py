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
