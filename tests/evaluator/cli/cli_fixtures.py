"""What the CLI tests share: a policy whose first line is a comment, so located errors count lines."""

POLICY = """\
# replicas policy
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "object.spec.replicas <= 5", message: too many replicas}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
"""
