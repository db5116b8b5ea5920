"""`python -m evaluator simulate|batch` without Django."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evaluator.cli import main
from evaluator.cli.batch import Summary, run_batch
from evaluator.simulation import Simulation
from tests.evaluator.cli.cli_fixtures import POLICY


def deployment(name: str, replicas: int) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas},
    }


def test_simulate_text_and_exit_status(tmp_path: Path, capsys):
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(deployment("big", 9)))
    assert main(["simulate", "-f", str(tmp_path / "p.yaml"), "-f", str(tmp_path / "r.yaml")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("DENIED (422 Invalid)\n")
    assert "denied request: too many replicas" in out
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(deployment("small", 1)))
    assert main(["simulate", "-f", str(tmp_path / "p.yaml"), "--request", str(tmp_path / "r.yaml"), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["allowed"] is True


def test_batch_summary_per_policy(tmp_path: Path):
    dump = {"apiVersion": "v1", "kind": "List", "items": [deployment(f"d{i}", i) for i in range(8)]}
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "dump.yaml").write_text(yaml.safe_dump(dump))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "batch",
            "-f",
            str(tmp_path / "p.yaml"),
            "--objects",
            str(tmp_path / "dump.yaml"),
            "-o",
            "json",
            "--progress",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # two objects denied
    summary = json.loads(done.stdout)
    assert summary["objects"] == 8 and summary["denied"] == 2
    assert summary["policies"]["replicas"]["denied"] == 2 and summary["policies"]["replicas"]["admitted"] == 6
    assert "8/8" in done.stderr  # the progress bar, asked for (stderr is no terminal here)


def test_run_batch_reports_progress():
    seen = []
    summary = run_batch(Simulation(POLICY), [deployment("a", 9), deployment("b", 1)], seen.append)
    assert isinstance(summary, Summary) and seen[-1] == 2
    assert summary.policies["replicas"]["examples"]["denied"][0] == {
        "index": 0,
        "object": "Deployment default/a",
        "message": "too many replicas",
    }


def test_kubernetes_version_option(tmp_path: Path, capsys):
    """isSemver (1.33) is refused in a new policy by a 1.33 server (compatibility version 1.32), not by 1.34."""
    (tmp_path / "p.yaml").write_text(
        POLICY.replace("object.spec.replicas <= 5", "isSemver('1.0.0') && object.spec.replicas <= 5")
    )
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(deployment("big", 9)))
    args = ["simulate", "-f", str(tmp_path / "p.yaml"), "--request", str(tmp_path / "r.yaml"), "-o", "json"]
    assert main([*args, "--kubernetes-version", "1.33"]) == 2  # the refused policy is an error of the input
    result = json.loads(capsys.readouterr().out)
    assert result["allowed"] is True
    assert result["kubernetesVersion"] == "1.33"
    assert any("undeclared reference to 'isSemver'" in e["message"] for e in result["errors"])
    assert main([*args, "--kubernetes-version", "v1.34"]) == 1
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([*args, "--kubernetes-version", "0.9"])
    assert "unsupported Kubernetes version" in capsys.readouterr().err


def test_a_webhook_denial_has_a_code_and_no_reason_in_its_header():
    from evaluator.cli.render import render_result

    status = {"code": 400, "message": 'admission webhook "mpol.validate.kyverno.svc-fail" denied the request: x'}
    assert render_result({"allowed": False, "status": status}).startswith("DENIED (400)\nadmission webhook")
    assert render_result({"allowed": False, "status": {}}).startswith("DENIED\n")


def test_request_messages_name_the_request_file(tmp_path: Path, capsys):
    (tmp_path / "p.yaml").write_text(POLICY)
    bad = {"kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "operation": "EXPLODE"}
    (tmp_path / "bad-request.yaml").write_text(yaml.safe_dump(bad))
    args = ["simulate", "-f", str(tmp_path / "p.yaml"), "-o", "json"]
    assert main([*args, "--request", str(tmp_path / "bad-request.yaml")]) == 2
    errors = json.loads(capsys.readouterr().out)["requestErrors"]
    assert errors and {e["source"] for e in errors} == {str(tmp_path / "bad-request.yaml")}
    # the request found among the -f files: its warning names that file
    (tmp_path / "r.yaml").write_text(
        yaml.safe_dump({**deployment("small", 1), "metadata": {"name": "s", "namespace": "t"}})
    )
    assert main([*args, "-f", str(tmp_path / "r.yaml")]) == 0
    warnings = json.loads(capsys.readouterr().out)["requestErrors"]
    assert [w["source"] for w in warnings] == [str(tmp_path / "r.yaml")]
    assert "Namespace" in warnings[0]["message"]
