"""`kyverno-test`: every row evaluated or listed as skipped, VAP rows as Kyverno's CLI reads them, broken
folders reported where they break while the others run, and exit codes a CI can rely on."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from evaluator.cli import main
from evaluator.cli.kyverno_test import run_file
from evaluator.cli.kyverno_test.report import text
from evaluator.admission.go_yaml import load_all

CLUSTER_POLICY = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: allowed
      apiCall: {urlPath: "/api/v1/namespaces/{{request.namespace}}", jmesPath: "metadata.labels.team"}
    validate:
      message: "team {{ request.object.metadata.labels.team }} is not {{ allowed }}"
      deny:
        conditions:
          all: [{key: "{{ request.object.metadata.labels.team }}", operator: NotEquals, value: "{{ allowed }}"}]
"""
PODS = """
apiVersion: v1
kind: Pod
metadata: {name: good, labels: {team: a}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, labels: {team: b}}
spec: {containers: [{name: c, image: nginx}]}
"""
VALUES = """
apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
- name: require-team
  rules:
  - name: team
    values: {allowed: a}
"""
VAP = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - {expression: "object.spec.replicas <= 3", message: at most 3 replicas}
"""
DEPLOYMENTS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: small, namespace: prod}
spec: {replicas: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: prod}
spec: {replicas: 9}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big-dev, namespace: dev}
spec: {replicas: 9}
---
apiVersion: v1
kind: Pod
metadata: {name: pod, namespace: prod}
spec: {containers: [{name: c, image: nginx}]}
"""


def folder(root: Path, name: str, **files: str) -> Path:
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    for file_name, content in files.items():
        (path / file_name.replace("_", "-").replace("-yaml", ".yaml")).write_text(textwrap.dedent(content))
    return path


def kyverno_test(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["kyverno-test", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_yaml_keeps_timestamps_and_sexagesimal_as_strings():
    [doc] = load_all("a: 2023-01-01\nb: 1:20\nc: 12\nd: 1.5\ne: yes\n")
    assert doc == {"a": "2023-01-01", "b": "1:20", "c": 12, "d": 1.5, "e": True}


def good_folder(root: Path) -> Path:
    return folder(
        root,
        "good",
        policy_yaml=CLUSTER_POLICY,
        resources_yaml=PODS,
        values_yaml=VALUES,
        kyverno_test_yaml="""
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Test
        metadata: {name: t}
        policies: [policy.yaml]
        resources: [resources.yaml]
        variables: values.yaml
        results:
        - {policy: require-team, rule: team, kind: Pod, resources: [good], result: pass}
        - {policy: require-team, rule: team, kind: Pod, resources: [default/bad], result: fail}
        """,
    )


def test_values_are_applied_and_results_compared(tmp_path, capsys):
    path = good_folder(tmp_path)
    (path / "kyverno-test.yaml").write_text(
        (path / "kyverno-test.yaml").read_text()
        + textwrap.dedent("""\
        - {policy: require-team, rule: team, kind: Pod, resources: [bad], result: pass}
        """)
    )
    report = run_file(path / "kyverno-test.yaml")
    assert [r.status for r in report.rows] == ["ok", "ok", "failed"]
    assert report.rows[2].message == "team b is not a"
    assert report.verdict == "FAIL"
    status, out, _ = kyverno_test(capsys, str(path))
    assert status == 1
    assert "Want pass, got fail -- team b is not a" in out
    assert out.rstrip().endswith(
        "Test Summary: 2 out of 3 results passed (0 excluded), 1 failed, "
        "0 skipped (not evaluated), 0 errors; 0 file errors"
    )


def test_a_good_folder_passes_with_exit_0(tmp_path, capsys):
    status, out, _ = kyverno_test(capsys, str(good_folder(tmp_path)))
    assert status == 0
    assert out.startswith(f"PASS {tmp_path / 'good' / 'kyverno-test.yaml'}\n")


def test_a_broken_folder_is_located_and_the_good_one_beside_it_still_runs(tmp_path, capsys):
    good_folder(tmp_path)
    folder(
        tmp_path,
        "broken",
        policy_yaml=CLUSTER_POLICY,
        resources_yaml="apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   labels: {}\n",
        kyverno_test_yaml="""
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Test
        metadata: {name: t}
        policies: [policy.yaml]
        resources: [resources.yaml]
        results:
        - {policy: require-team, rule: team, kind: Pod, resources: [x], result: pass}
        """,
    )
    status, out, _ = kyverno_test(capsys, str(tmp_path))
    assert status == 1
    broken = tmp_path / "broken" / "resources.yaml"
    assert f"ERROR {tmp_path / 'broken' / 'kyverno-test.yaml'}" in out
    assert re.search(
        rf"^  {re.escape(str(broken))}:5:10: error: invalid YAML: mapping values are not allowed here", out, re.M
    ), out
    assert f"PASS {tmp_path / 'good' / 'kyverno-test.yaml'}" in out
    assert "Test Summary: 2 out of 3 results passed" in out


def test_a_test_without_results_beside_a_good_one_passes_as_kyverno_test_skips_it(tmp_path, capsys):
    """kyverno/policies' other/ensure-production-matches-staging declares no results: `kyverno test` runs
    nothing for it and exits 0 when nothing else failed."""
    good = good_folder(tmp_path)
    empty = tmp_path / "empty"
    shutil.copytree(good, empty)
    test_file = empty / "kyverno-test.yaml"
    test_file.write_text(test_file.read_text().split("results:")[0])
    status, out, _ = kyverno_test(capsys, str(tmp_path))
    assert status == 0
    assert f"EMPTY {empty / 'kyverno-test.yaml'}" in out
    assert f"PASS {tmp_path / 'good' / 'kyverno-test.yaml'}" in out


def test_a_broken_test_file_is_located(tmp_path, capsys):
    path = folder(tmp_path, "t", kyverno_test_yaml="results:\n- {policy: a\n")
    status, out, _ = kyverno_test(capsys, str(path))
    assert status == 1
    assert re.search(r"kyverno-test\.yaml:3:1: error: invalid YAML", out), out


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_a_missing_or_empty_path_is_2(tmp_path, capsys, make):
    status, out, err = kyverno_test(capsys, str(make(tmp_path)))
    assert status == 2
    assert err.startswith(str(make(tmp_path)) + ": error: ")
    assert "Test Summary: 0 out of 0 results passed" in out


def test_an_empty_path_beside_a_good_one_is_still_2(tmp_path, capsys):
    status, _, err = kyverno_test(capsys, str(good_folder(tmp_path)), str(tmp_path / "nope"))
    assert status == 2 and "nope: error: no such file or folder" in err


def test_a_misspelled_policy_is_excluded_and_says_so(tmp_path, capsys):
    path = good_folder(tmp_path)
    test_file = path / "kyverno-test.yaml"
    test_file.write_text(
        test_file.read_text() + "- {policy: require-teams, rule: team, kind: Pod, resources: [bad], result: fail}\n"
    )
    status, out, _ = kyverno_test(capsys, str(path))
    assert status == 0  # as `kyverno test`: pass (Excluded)
    assert "require-teams / team / Pod/bad: Excluded (no policy named 'require-teams' in the test's policies" in out
    assert "(1 excluded)" in out


def test_an_unknown_flag_is_ignored_as_the_cli_ignores_it(tmp_path, capsys):
    """kyverno/policies holds `isMUtatingPolicy: true`: the CLI ignores the key and so do we; the row is
    evaluated by the kind of the policy it names."""
    path = good_folder(tmp_path)
    test_file = path / "kyverno-test.yaml"
    test_file.write_text(
        test_file.read_text()
        + textwrap.dedent("""\
        - {policy: require-team, rule: team, kind: Pod, resources: [bad], result: pass, isFuturePolicy: true}
        """)
    )
    status, out, _ = kyverno_test(capsys, str(path))
    assert status == 1
    assert "Want pass, got fail -- team b is not a" in out
    assert "1 failed, 0 skipped (not evaluated)" in out


VAP_TEST = """
apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: vap}
policies: [policy.yaml]
resources: [resources.yaml]
variables: values.yaml
results:
- {isValidatingAdmissionPolicy: true, policy: max-replicas, kind: Deployment, resources: [small], result: pass}
- {isValidatingAdmissionPolicy: true, policy: max-replicas, kind: Deployment, resources: [big], result: fail}
- {isValidatingAdmissionPolicy: true, policy: max-replicas, kind: Deployment, resources: [big-dev], result: %s}
- {isValidatingAdmissionPolicy: true, policy: max-replicas, kind: Pod, resources: [pod], result: %s}
"""
NAMESPACES = """
apiVersion: cli.kyverno.io/v1alpha1
kind: Values
namespaceSelector:
- {name: prod, labels: {env: prod}}
- {name: dev, labels: {env: dev}}
"""


def rows(tmp_path: Path, capsys, policy: str, big_dev: str, pod: str) -> list[tuple[str, str, str]]:
    path = folder(
        tmp_path,
        "vap",
        policy_yaml=policy,
        resources_yaml=DEPLOYMENTS,
        values_yaml=NAMESPACES,
        kyverno_test_yaml=VAP_TEST % (big_dev, pod),
    )
    report = run_file(path / "kyverno-test.yaml")
    status, out, _ = kyverno_test(capsys, str(path))
    assert status == (0 if report.passed else 1)
    return [(r.resource, r.actual, r.status) for r in report.rows]


def test_vap_rows_without_binding_apply_where_the_policy_matches(tmp_path, capsys):
    assert rows(tmp_path, capsys, VAP, "fail", "pass") == [
        ("small", "pass", "ok"),
        ("big", "fail", "ok"),
        ("big-dev", "fail", "ok"),
        ("pod", "excluded", "excluded"),
    ]  # the policy does not match Pods: no response, pass (Excluded)


def test_vap_rows_with_a_binding_use_its_match_resources(tmp_path, capsys):
    binding = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: prod-only}
spec:
  policyName: max-replicas
  validationActions: [Audit]
  matchResources:
    namespaceSelector: {matchLabels: {env: prod}}
"""
    # big-dev is outside the binding's namespaces: no response. Audit plays no part in the CLI's result.
    # With bindings the CLI does not consult the policy's matchConstraints: the Pod is validated, and
    # `object.spec.replicas` is an error on a Pod.
    assert rows(tmp_path, capsys, VAP + binding, "pass", "error") == [
        ("small", "pass", "ok"),
        ("big", "fail", "ok"),
        ("big-dev", "excluded", "excluded"),
        ("pod", "error", "ok"),
    ]


def test_vap_match_conditions_skip_and_errors_error(tmp_path, capsys):
    policy = VAP.replace(
        "  validations:",
        """  matchConditions:
  - {name: not-small, expression: "object.metadata.name != 'small'"}
  validations:
  - {expression: "object.spec.missing.field == 1"}""",
    )
    path = folder(
        tmp_path,
        "vap",
        policy_yaml=policy,
        resources_yaml=DEPLOYMENTS,
        values_yaml=NAMESPACES,
        kyverno_test_yaml=VAP_TEST % ("error", "pass"),
    )
    report = run_file(path / "kyverno-test.yaml")
    assert [(r.resource, r.actual) for r in report.rows] == [
        ("small", "skip"),
        ("big", "error"),
        ("big-dev", "error"),
        ("pod", "excluded"),
    ]


SIGNATURES_POLICY = """
apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: signed-images}
spec:
  validationConfigurations: {verifyDigest: false}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  matchImageReferences: [{glob: "*"}]
  attestors: [{name: notary, notary: {certs: {value: "cert"}}}]
  validations:
  - expression: "images.containers.map(i, verifyImageSignatures(i, [attestors.notary])).all(e, e > 0)"
    message: unsigned image
"""


def test_json_and_junit_outputs(tmp_path, capsys):
    path = good_folder(tmp_path)
    (path / "signatures.yaml").write_text(SIGNATURES_POLICY)
    test_file = path / "kyverno-test.yaml"
    text = test_file.read_text().replace("policies: [policy.yaml]", "policies: [policy.yaml, signatures.yaml]")
    test_file.write_text(
        text
        + textwrap.dedent("""\
        - {policy: require-team, rule: team, kind: Pod, resources: [bad], result: pass}
        - {policy: signed-images, kind: Pod, resources: [good], result: pass, isImageValidatingPolicy: true}
        """)
    )
    status, out, _ = kyverno_test(capsys, str(path), "-o", "json")
    assert status == 1
    summary = json.loads(out)["summary"]
    assert (summary["results"], summary["passed"], summary["failed"], summary["skipped"]) == (4, 2, 1, 1)
    status, out, _ = kyverno_test(capsys, str(path), "--output", "junit")
    assert status == 1
    root = ET.fromstring(out.split("\n", 1)[1])
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "0")
    suite = root.find("testsuite")
    assert suite is not None and suite.get("skipped") == "1"  # per suite: the schema has no total on <testsuites>
    failure = root.find(".//failure")
    assert failure is not None and failure.get("message") == "want pass, got fail"


def test_text_report_of_nothing_says_so():
    assert text([]) == (
        "Test Summary: 0 out of 0 results passed (0 excluded), 0 failed, 0 skipped (not evaluated), "
        "0 errors; 0 file errors"
    )


def test_resource_specs_name_resources_as_kyverno_reads_them(tmp_path, capsys):
    """`resourceSpecs` name resources by apiVersion, namespace and name, and count only beside a `resources`
    list (even empty), as `kyverno test` reads them."""
    path = good_folder(tmp_path)
    (path / "kyverno-test.yaml").write_text(
        (path / "kyverno-test.yaml").read_text()
        + textwrap.dedent("""\
        - policy: require-team
          rule: team
          kind: Pod
          resources: []
          resourceSpecs: [{version: v1, namespace: default, name: bad}, {group: apps, version: v1, name: good}]
          result: fail
        - policy: require-team
          rule: team
          kind: Pod
          resources: [good]
          resourceSpecs: [{version: v1, namespace: default, name: bad}]
          result: pass
        """)
    )
    report = run_file(path / "kyverno-test.yaml")
    assert [(r.resource, r.expected, r.status) for r in report.rows[2:]] == [
        ("default/bad", "fail", "ok"),
        ("good", "pass", "ok"),
        ("default/bad", "pass", "failed"),
    ]
