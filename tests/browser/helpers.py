"""Content and editor actions shared by the browser tests."""

from __future__ import annotations

POLICY = """\
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

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {name}-binding
spec:
  policyName: {name}
  validationActions: [Deny]
"""


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


def project_body(policy_name: str = "max-replicas", message: str = '"replicas must be at most 5"',
                 replicas: int = 7, request_name: str = "seven replicas", title: str = "Browser test") -> dict:
    return {
        "title": title,
        "documents": [{"name": "policy.yaml", "text": POLICY.format(name=policy_name, message=message)},
                      {"name": "binding.yaml", "text": BINDING.format(name=policy_name)}],
        "requests": [{"name": request_name, "text": deployment(replicas), "expected": {"outcome": "denied"}}],
    }


def editor(page, target: str, index: int = 0):
    """The CodeMirror content element of the index-th document or request panel."""
    return page.locator(f".panel[data-target={target}] .cm-content").nth(index)


def card(page, index: int = 0):
    return page.locator(".result-card").nth(index)


def replace_text(page, target: str, index: int, text: str) -> None:
    """Select all in an editor and insert `text` as one input (no auto-indent), as a paste would."""
    content = editor(page, target, index)
    content.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text)
