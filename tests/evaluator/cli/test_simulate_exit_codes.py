"""`simulate` as a CI gate: 0 admitted, 1 denied, 2 unusable input, problems located FILE:LINE:COLUMN."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from evaluator.cli import main
from tests.evaluator.cli.cli_fixtures import POLICY

ROOT = Path(__file__).resolve().parents[3]


def deployment(replicas: int) -> str:
    return f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\nspec: {{replicas: {replicas}}}\n"


@pytest.fixture
def files(tmp_path: Path):
    def write(name: str, text: str) -> str:
        (tmp_path / name).write_text(text)
        return str(tmp_path / name)

    return write


def simulate(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["simulate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_admitted_is_0_and_denied_is_1(files, capsys):
    policy = files("p.yaml", POLICY)
    assert simulate(capsys, "-f", policy, "-f", files("small.yaml", deployment(1)))[0] == 0
    status, out, _ = simulate(capsys, "-f", policy, "-f", files("big.yaml", deployment(9)))
    assert status == 1 and out.startswith("DENIED (422 Invalid)\n")


KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Enforce
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate: {message: "a team label is required", pattern: {metadata: {labels: {team: "?*"}}}}
"""


def test_a_kyverno_denial_is_1_not_unusable(files, capsys):
    status, out, _ = simulate(capsys, "-f", files("k.yaml", KYVERNO), "-f", files("big.yaml", deployment(1)))
    assert status == 1
    assert out.startswith("DENIED") and "a team label is required" in out


def test_an_undecodable_request_is_2(files, capsys):
    request = files("req.yaml", "operation: CREATE\nobject: [1, 2]\n")
    status, _, err = simulate(capsys, "-f", files("p.yaml", POLICY), "--request", request)
    assert status == 2 and ": error: " in err


def test_a_yaml_error_is_2_and_located_in_its_own_file(files, capsys):
    policy = files("p.yaml", POLICY)
    broken = files("broken.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [web\n")
    status, _, err = simulate(capsys, "-f", policy, "-f", broken)
    assert status == 2
    # line 4, column 1 of broken.yaml (where PyYAML finds the unclosed flow), not of the files joined
    assert re.search(rf"^{re.escape(broken)}:4:1: error: invalid YAML: ", err, re.M), err


def test_a_yaml_error_in_a_later_document_keeps_the_file_lines(files, capsys):
    text = POLICY + "---\nkind: [\n---\n" + deployment(1)
    status, _, err = simulate(capsys, "-f", files("all.yaml", text))
    assert status == 2
    assert re.search(r"all\.yaml:18:1: error: invalid YAML", err), err


def test_a_cel_compile_error_is_2_and_names_the_file_and_line(files, capsys):
    broken = files("p.yaml", POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <="))
    status, out, err = simulate(capsys, "-f", broken, "-f", files("small.yaml", deployment(1)))
    assert status == 2
    assert out.startswith("UNUSABLE INPUT: 1 error(s)")
    [line] = [ln for ln in err.splitlines() if ": error: " in ln]
    assert re.match(
        rf"{re.escape(broken)}:\d+(:\d+)?: error: spec\.validations\[0\]\.expression: Invalid value: ", line
    )
    assert "compilation failed" in line


def test_an_invalid_policy_is_2(files, capsys):
    invalid = POLICY.replace(
        '  validations:\n  - {expression: "object.spec.replicas <= 5", message: too many replicas}\n', ""
    )
    status, _, err = simulate(capsys, "-f", files("p.yaml", invalid), "-f", files("small.yaml", deployment(1)))
    assert status == 2
    # the line is the engine's (the document's, or the field's once the engine locates fields)
    assert re.search(r"p\.yaml:\d+(:\d+)?: error: spec\.validations: Required value", err), err


def test_a_missing_file_is_2(files, capsys):
    status, _, err = simulate(
        capsys,
        "-f",
        files("p.yaml", POLICY),
        "-f",
        "/nonexistent/policy.yaml",
        "-f",
        files("small.yaml", deployment(1)),
    )
    assert status == 2
    assert "/nonexistent/policy.yaml: error: cannot read file: No such file or directory" in err


def test_no_request_is_2(files, capsys):
    status, _, err = simulate(capsys, "-f", files("p.yaml", POLICY))
    assert status == 2
    assert "no request found" in err


def test_a_broken_request_file_reports_its_yaml_error(files, capsys):
    broken = files("req.yaml", "apiVersion: apps/v1\nkind: [Deployment\n")
    status, _, err = simulate(capsys, "-f", files("p.yaml", POLICY), "--request", broken)
    assert status == 2
    assert re.search(rf"^{re.escape(broken)}:3:1: error: invalid YAML", err, re.M), err
    assert "no request found" not in err


ADMISSION_REQUEST = """\
operation: CREATE
userInfo: {username: alice}
object:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec: {replicas: 9}
"""


def test_an_admission_request_is_a_request_in_its_own_file_or_among_the_documents(files, capsys):
    policy = files("p.yaml", POLICY)
    status, out, err = simulate(capsys, "-f", policy, "--request", files("ar.yaml", ADMISSION_REQUEST))
    assert status == 1 and out.startswith("DENIED (422 Invalid)"), err
    status, out, err = simulate(capsys, "-f", files("all.yaml", POLICY + "---\n" + ADMISSION_REQUEST))
    assert status == 1 and out.startswith("DENIED (422 Invalid)"), err
    assert ": error: " not in err


def test_an_empty_request_file_is_2(files, capsys):
    status, _, err = simulate(capsys, "-f", files("p.yaml", POLICY), "--request", files("req.yaml", "# nothing\n"))
    assert status == 2 and "no request found in this file" in err


def test_the_request_document_is_not_also_cluster_state(files, capsys):
    """The request taken out of a file leaves the other documents' numbers and lines as they were."""
    text = POLICY + "---\n" + deployment(9) + "---\nkind: [\n"
    status, out, err = simulate(capsys, "-f", files("all.yaml", text))
    assert status == 2
    assert "DENIED" in out  # the Deployment was the request
    assert re.search(r"all\.yaml:23:1: error: invalid YAML", err), err


def test_json_output_carries_file_names(files, capsys):
    broken = files("p.yaml", POLICY.replace("<= 5", "<="))
    status, out, _ = simulate(capsys, "-f", broken, "-f", files("r.yaml", deployment(1)), "-o", "json")
    assert status == 2
    errors = [e for e in json.loads(out)["errors"] if e["severity"] == "error"]
    assert [e["source"] for e in errors] == [broken]


def test_junit_output_fails_a_denial_and_errors_a_broken_input(files, capsys):
    policy = files("p.yaml", POLICY)
    status, out, _ = simulate(capsys, "-f", policy, "-f", files("big.yaml", deployment(9)), "-o", "junit")
    assert status == 1
    root = ET.fromstring(out.split("\n", 1)[1])
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "1", "0")
    [case] = root.iter("testcase")
    assert case.get("name") == "request Deployment/default/web"
    assert "too many replicas" in case.find("failure").get("message")

    status, out, _ = simulate(
        capsys, "-f", files("bad.yaml", "kind: [\n"), "-f", files("small.yaml", deployment(1)), "-o", "junit"
    )
    assert status == 2
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.get("errors") == "1"


def test_the_console_script_and_python_m_evaluator_are_the_same_command(files):
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"admission-playground": "evaluator.cli:console"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "simulate",
            "-f",
            files("p.yaml", POLICY),
            "-f",
            files("big.yaml", deployment(9)),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 1, run.stderr
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from evaluator.cli import console; console()",
            "simulate",
            "-f",
            files("x.yaml", "kind: [\n"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2 and "x.yaml:2:1: error: invalid YAML" in run.stderr


def test_output_admissionreview_prints_the_webhook_exchange_and_keeps_the_exit_status(files, capsys):
    from evaluator.formats import admission_review

    policy = files("p.yaml", POLICY)
    status, out, err = simulate(capsys, "-f", policy, "-f", files("big.yaml", deployment(9)), "-o", "admissionreview")
    review = json.loads(out)
    assert status == 1 and err == ""
    assert (review["apiVersion"], review["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
    assert review["request"]["uid"] == review["response"]["uid"]
    assert review["request"]["object"]["spec"]["replicas"] == 9 and review["request"]["operation"] == "CREATE"
    assert review["response"]["allowed"] is False and review["response"]["status"]["code"] == 422
    assert review["response"]["status"]["message"].endswith("denied request: too many replicas")
    # the printed review is a request the tools read back, with its decision as the expectation
    assert admission_review.import_review(out)["requests"][0]["expected"] == {"allowed": False}
    status, out, _ = simulate(capsys, "-f", policy, "--request", files("r.json", out), "-o", "admissionreview")
    assert status == 1 and json.loads(out)["request"]["uid"] == review["request"]["uid"]
    # an unusable request prints no review, only its located problems
    request = files("req.yaml", "operation: CREATE\nobject: [1, 2]\n")
    status, out, err = simulate(capsys, "-f", policy, "--request", request, "-o", "admissionreview")
    assert status == 2 and out == "" and ": error: " in err


def test_only_the_json_output_type_checks(files, capsys, monkeypatch):
    """`typeChecking` is in the JSON output only; the other outputs do not pay for the checker, and say the same."""
    from evaluator.simulation import Simulation

    policy, request = files("p.yaml", POLICY), files("big.yaml", deployment(9))
    status, out, _ = simulate(capsys, "-f", policy, "-f", request, "-o", "json")
    assert status == 1 and json.loads(out)["typeChecking"]  # the policy's expressions, checked
    outputs = {o: simulate(capsys, "-f", policy, "-f", request, "-o", o) for o in ("text", "junit", "admissionreview")}
    checked = []
    monkeypatch.setattr(Simulation, "type_checks", lambda self: checked.append(self) or {})
    for output, expected in outputs.items():
        assert simulate(capsys, "-f", policy, "-f", request, "-o", output) == expected
    assert checked == []
