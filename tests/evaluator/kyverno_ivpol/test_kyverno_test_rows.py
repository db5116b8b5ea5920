"""kyverno-test on ImageValidatingPolicy rows: evaluated offline, pass (Excluded) when the policy does not
apply, and rows that need the image registry skipped with the reason."""

from __future__ import annotations

import textwrap

from evaluator.cli.kyverno_test import run_file

POLICY = """
apiVersion: policies.kyverno.io/v1beta1
kind: ImageValidatingPolicy
metadata: {name: ivpol-sample}
spec:
  validationConfigurations: {verifyDigest: false}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  matchConditions:
  - {name: prod, expression: "object.metadata.?labels.prod.orValue('') == 'true'"}
  matchImageReferences: [{glob: "ghcr.io/*"}]
  attestors: [{name: notary, notary: {certs: {value: "cert"}}}]
  validations:
  - {expression: "object.metadata.name != 'denied'", message: "this pod is denied"}
  - expression: "images.containers.map(i, verifyImageSignatures(i, [attestors.notary])).all(e, e > 0)"
    message: failed to verify image with notary cert
"""
EXCEPTION = """
apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: check-name}
spec:
  policyRefs: [{name: ivpol-sample, kind: ImageValidatingPolicy}]
  matchConditions: [{name: n, expression: "object.metadata.name == 'skipped'"}]
"""


def _pod(name: str, prod: str = "true") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{prod: '{prod}'}}}}\n"
        "spec: {containers: [{name: c, image: 'ghcr.io/kyverno/test-verify-image:signed'}]}\n"
    )


def test_ivpol_rows(tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "exception.yaml").write_text(EXCEPTION)
    (tmp_path / "resources.yaml").write_text(
        "---\n".join([_pod("denied"), _pod("skipped"), _pod("other", prod="false"), _pod("signed")])
    )
    (tmp_path / "kyverno-test.yaml").write_text(
        textwrap.dedent("""\
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Test
        metadata: {name: t}
        policies: [policy.yaml]
        exceptions: [exception.yaml]
        resources: [resources.yaml]
        results:
        - {isImageValidatingPolicy: true, kind: Pod, policy: ivpol-sample, resources: [denied], result: fail}
        - {isImageValidatingPolicy: true, kind: Pod, policy: ivpol-sample, resources: [skipped], result: skip}
        - {kind: Pod, policy: ivpol-sample, resources: [other], result: pass}
        - {isImageValidatingPolicy: true, kind: Pod, policy: ivpol-sample, resources: [signed], result: pass}
        - {isImageValidatingPolicy: true, kind: Pod, policy: ivpol-sample, resources: [absent], result: pass}
        """)
    )
    rows = run_file(tmp_path / "kyverno-test.yaml").rows
    assert [(r.resource, r.status, r.actual) for r in rows] == [
        ("denied", "ok", "fail"),
        ("skipped", "ok", "skip"),
        ("other", "excluded", "pass"),
        ("signed", "skipped", "not evaluated"),
        ("absent", "error", "missing"),
    ]
    assert rows[0].message == "this pod is denied"
    assert "verifyImageSignatures(ghcr.io/kyverno/test-verify-image:signed) needs the image registry" in rows[3].message
