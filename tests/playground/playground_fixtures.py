"""Small real projects shared by the playground tests (no engine mocks: every result is computed)."""


def policy(name: str = "max-replicas", message: str = '"replicas must be no greater than 5"') -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {name}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    message: {message}
"""


def binding(name: str = "max-replicas") -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {name}-binding
spec:
  policyName: {name}
  validationActions: [Deny]
"""


POLICY = policy()
BINDING = binding()


def deployment(replicas: int, name: str = "web") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: default
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: nginx}}]
"""


def project_body() -> dict:
    return {
        "title": "Replica limit",
        "documents": [{"name": "policy", "text": POLICY}, {"name": "binding", "text": BINDING}],
        "requests": [
            {"name": "small", "text": deployment(2), "expected": {"allowed": True}},
            {
                "name": "big",
                "text": deployment(9),
                "expected": {"outcome": "denied", "messageContains": "no greater than 5"},
            },
        ],
    }


def costly_policies(policies: int = 2, validations: int = 8) -> list[str]:
    """Policies whose every expression stays just inside its cost limit: seconds of honest work in all."""
    documents = []
    for p in range(policies):
        rules = "".join(f"  - expression: lists.range(150000).all(x, x >= {-v})\n" for v in range(1, validations + 1))
        documents.append(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
            f"metadata: {{name: costly-{p}}}\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n"
            '    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]\n'
            f"  validations:\n{rules}"
        )
        documents.append(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
            f"metadata: {{name: costly-{p}}}\nspec: {{policyName: costly-{p}, validationActions: [Deny]}}\n"
        )
    return documents
