"""`admission-playground test`: projects saved as files run like `kyverno test` (the gallery passes; failures,
document errors and unusable paths give the documented exit codes; JUnit output is schema-valid)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema

from evaluator.cli import main
from evaluator.formats.project_files import find_project_files

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "playground" / "examples"
JUNIT_SCHEMA = xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit" / "junit-10.xsd"))

POLICY = """\
title: replicas
documents:
- name: policy
  text: |
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: replicas
    spec:
      matchConstraints:
        resourceRules:
        - apiGroups: [apps]
          apiVersions: [v1]
          operations: [CREATE]
          resources: [deployments]
      validations:
      - expression: {expression}
- name: binding
  text: |
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: replicas
    spec:
      policyName: replicas
      validationActions: [Deny]
requests:
- name: six replicas
  text: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: web, namespace: default}}
    spec: {{replicas: 6}}
  expected: {{allowed: false, messageContains: "failed expression"}}
- name: no expectation
  text: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: other, namespace: default}}
    spec: {{replicas: 1}}
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["test", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(tmp_path: Path, expression: str) -> Path:
    path = tmp_path / "project.yaml"
    path.write_text(POLICY.format(expression=expression))
    return tmp_path


def test_every_gallery_example_passes(capsys):
    files = find_project_files(EXAMPLES)
    assert len(files) == len(list(EXAMPLES.glob("*.yaml"))) > 50
    status, out, _ = run(capsys, str(EXAMPLES), "-o", "json")
    summary = json.loads(out)["summary"]
    assert status == 0, [p for p in json.loads(out)["projects"] if not p["passed"]]
    assert summary["projects"] == len(files) and summary["tests"] > 100
    assert summary["passed"] == summary["tests"] and summary["projectErrors"] == 0


def test_gallery_junit_is_valid_for_the_ci_schema(capsys):
    status, out, _ = run(capsys, str(EXAMPLES / "seed-vap-basic-deny.yaml"), "--output", "junit")
    assert status == 0
    JUNIT_SCHEMA.validate(out)


def test_a_failing_expectation_exits_1_and_says_why(tmp_path, capsys):
    status, out, _ = run(capsys, str(write(tmp_path, "object.spec.replicas <= 10")))
    assert status == 1
    assert "six replicas: FAILED -- expected allowed=false, got allowed=true" in out
    assert "no expectation: no expectation" in out
    assert "0 out of 1 tests passed, 1 failed" in out
    status, junit_out, _ = run(capsys, str(tmp_path), "-o", "junit")
    JUNIT_SCHEMA.validate(junit_out)
    assert '<failure message="expected allowed=false, got allowed=true' in junit_out


def test_a_passing_project(tmp_path, capsys):
    status, out, _ = run(capsys, str(write(tmp_path, "object.spec.replicas <= 5")))
    assert status == 0, out
    assert "PASS" in out and "1 out of 1 tests passed" in out


def test_a_document_error_is_located_in_the_file_and_fails(tmp_path, capsys):
    status, out, _ = run(capsys, str(write(tmp_path, "object.spec.replicas <=")))
    assert status == 1
    line = next(line for line in out.splitlines() if "compilation failed" in line)
    # at the expression's character in the project file (the end of `object.spec.replicas <=`, where it breaks)
    file_lines = (tmp_path / "project.yaml").read_text().split("\n")
    row = next(i for i, text in enumerate(file_lines, 1) if "expression: object.spec.replicas <=" in text)
    column = file_lines[row - 1].index("object.spec") + len("object.spec.replicas <=") + 1
    assert line.strip().startswith(
        f"{tmp_path / 'project.yaml'}:{row}:{column}: error: policy: spec.validations[0].expression"
    )
    status, junit_out, _ = run(capsys, str(tmp_path), "-o", "junit")
    JUNIT_SCHEMA.validate(junit_out)
    assert "<error " in junit_out


def test_broken_yaml_is_a_failing_project_not_a_crash(tmp_path, capsys):
    (tmp_path / "p.yaml").write_text("documents:\n- name: a\n  text: [unclosed\n")
    status, out, _ = run(capsys, str(tmp_path))
    assert status == 1
    assert f"{tmp_path / 'p.yaml'}:" in out and "invalid YAML" in out


@pytest.mark.parametrize("setup", ["missing", "empty"])
def test_unusable_paths_exit_2(tmp_path, capsys, setup):
    target = tmp_path / "nothing" if setup == "missing" else tmp_path
    if setup == "empty":
        (tmp_path / "policy.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    status, _, err = run(capsys, str(target))
    assert status == 2 and "error:" in err


def test_console_script_form(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "evaluator", "test", str(write(tmp_path, "object.spec.replicas <= 5"))],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_kubernetes_version_is_simulated(capsys):
    example = str(EXAMPLES / "seed-vap-basic-deny.yaml")
    assert run(capsys, example, "--kubernetes-version", "1.30")[0] == 0
    status, out, _ = run(capsys, example, "--kubernetes-version", "1.28")
    assert status == 1 and "Kubernetes 1.28 does not serve it (from 1.30)" in out


def test_broken_on_purpose_expects_document_errors(tmp_path, capsys):
    broken = POLICY.format(expression="object.spec.replicas <=").replace(
        "title: replicas\n", "title: replicas\ntags: [broken-on-purpose]\n"
    )
    (tmp_path / "broken.yaml").write_text(
        broken.replace('expected: {allowed: false, messageContains: "failed expression"}', "expected: {allowed: true}")
    )
    status, out, _ = run(capsys, str(tmp_path))
    assert status == 0, out
    assert "info: (expected) policy: spec.validations[0].expression" in out
    (tmp_path / "broken.yaml").write_text(
        POLICY.format(expression="object.spec.replicas <= 5").replace(
            "title: replicas\n", "title: replicas\ntags: [broken-on-purpose]\n"
        )
    )
    status, out, _ = run(capsys, str(tmp_path))
    assert status == 1 and "tagged broken-on-purpose but its documents load without an error" in out


def test_the_project_files_kubernetes_version_is_simulated_unless_the_option_says_otherwise(tmp_path, capsys):
    """The project file keeps its Kubernetes version (it was dropped on read and write)."""
    from evaluator.formats.project_files import read_project, write_project

    path = write(tmp_path, "object.spec.replicas <= 5") / "project.yaml"
    path.write_text("kubernetesVersion: '1.28'\n" + path.read_text())
    project = read_project(path.read_text(), str(path))
    assert project["kubernetesVersion"] == "1.28"
    assert read_project(write_project(project))["kubernetesVersion"] == "1.28"
    status, out, _ = run(capsys, str(path))  # admissionregistration.k8s.io/v1 VAPs: served from 1.30
    assert status == 1 and "Kubernetes 1.28 does not serve it (from 1.30)" in out
    assert run(capsys, str(path), "--kubernetes-version", "1.30")[0] == 0
    path.write_text(path.read_text().replace("'1.28'", "'2.0'"))
    status, out, _ = run(capsys, str(path))
    assert status == 1 and f"{path}: kubernetesVersion: " in out
