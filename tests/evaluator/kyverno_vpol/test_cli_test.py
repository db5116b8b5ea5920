"""`kyverno-test` evaluates ValidatingPolicy rows as `kyverno test` scores them."""

import textwrap

from evaluator.cli.kyverno_test import run_file as run_test_file

POLICY = """
apiVersion: policies.kyverno.io/v1alpha1
kind: ValidatingPolicy
metadata: {name: team-label}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  validations:
  - expression: "object.metadata.?labels.team.orValue('') != ''"
    message: team label
"""
RESOURCES = """
apiVersion: v1
kind: Pod
metadata: {name: good, labels: {team: a}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: bad-deploy}
spec:
  selector: {matchLabels: {}}
  template:
    metadata: {}
    spec: {containers: [{name: c, image: nginx}]}
"""


def _folder(tmp_path, results):
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "resources.yaml").write_text(RESOURCES)
    (tmp_path / "kyverno-test.yaml").write_text(
        textwrap.dedent("""
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Test
        metadata: {name: t}
        policies: [policy.yaml]
        resources: [resources.yaml]
        """)
        + results
    )
    return run_test_file(tmp_path / "kyverno-test.yaml")


def test_rows_pass_and_fail_including_autogen(tmp_path):
    report = _folder(
        tmp_path,
        textwrap.dedent("""
        results:
        - {isValidatingPolicy: true, policy: team-label, kind: Pod, resources: [good], result: pass}
        - {isValidatingPolicy: true, policy: team-label, kind: Pod, resources: [bad], result: fail}
        - {isValidatingPolicy: true, policy: team-label, kind: Deployment, resources: [bad-deploy], result: fail}
        """),
    )
    assert [(r.resource, r.actual, r.ok) for r in report.rows] == [
        ("good", "pass", True),
        ("bad", "fail", True),
        ("bad-deploy", "fail", True),
    ]


def test_a_wrong_expectation_fails_and_unflagged_rows_are_recognised(tmp_path):
    report = _folder(
        tmp_path,
        textwrap.dedent("""
        results:
        - {policy: team-label, kind: Pod, resources: [bad], result: pass}
        """),
    )
    [row] = report.rows
    assert (row.expected, row.actual, row.ok, row.message) == ("pass", "fail", False, "team label")


def test_a_result_naming_no_resource_checks_them_all(tmp_path):
    report = _folder(
        tmp_path,
        textwrap.dedent("""
        results:
        - {isValidatingPolicy: true, policy: team-label, kind: Pod, result: fail}
        """),
    )
    [row] = report.rows
    assert not row.ok and row.message == "good: want fail, got pass"
