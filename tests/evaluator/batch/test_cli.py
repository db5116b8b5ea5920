"""`admission-playground batch`: --jobs, --output text|json|policyreport|csv, object files of every format,
and the progress bar only on a terminal."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from evaluator.cli import main

from .policies import DOCUMENTS, mixed_objects

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "p.yaml").write_text(DOCUMENTS)
    objects = mixed_objects(24)
    (tmp_path / "dump.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    with tarfile.open(tmp_path / "dump.tgz", "w:gz") as tar:
        for i, obj in enumerate(objects):
            data = json.dumps(obj).encode()
            info = tarfile.TarInfo(f"manifests/{i:03}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return {name: str(tmp_path / name) for name in ("p.yaml", "dump.yaml", "dump.tgz")}


def batch(capsys, *args: str, status: int = 1) -> tuple[str, str]:
    """Output and errors of a run; the policy set denies some objects of every dump here (exit 1)."""
    assert main(["batch", *args]) == status
    out = capsys.readouterr()
    return out.out, out.err


def test_json_with_two_jobs_equals_one_job_and_a_tar_gz_equals_the_yaml(files, capsys):
    one, _ = batch(capsys, "-f", files["p.yaml"], "--objects", files["dump.yaml"], "-o", "json")
    two, _ = batch(capsys, "-f", files["p.yaml"], "--objects", files["dump.yaml"], "-o", "json", "--jobs", "2")
    archive, _ = batch(capsys, "-f", files["p.yaml"], "--objects", files["dump.tgz"], "-o", "json", "-j", "2")
    assert json.loads(one) == json.loads(two) == json.loads(archive)
    summary = json.loads(one)
    assert (summary["objects"], summary["denied"], summary["errors"]) == (24, 9, 3)
    assert summary["kinds"]["Pod"]["denied"] == 3


def test_policyreport_output_is_yaml_reports(files, capsys):
    out, _ = batch(capsys, "-f", files["p.yaml"], "--objects", files["dump.yaml"], "-o", "policyreport")
    reports = list(yaml.safe_load_all(out))
    assert {r["kind"] for r in reports} == {"PolicyReport"}  # the dump's cluster-scoped objects meet no policy
    assert all(r["apiVersion"] == "wgpolicyk8s.io/v1alpha2" for r in reports)
    assert len({(r["metadata"].get("namespace"), r["metadata"]["name"]) for r in reports}) == len(reports) > 3
    assert all(r["scope"]["name"] for r in reports)  # one report per resource


def test_csv_output(files, capsys):
    out, _ = batch(capsys, "-f", files["p.yaml"], "--objects", files["dump.yaml"], "-o", "csv")
    lines = list(csv.DictReader(io.StringIO(out)))
    assert {int(line["index"]) for line in lines} == set(range(24))
    assert {line["outcome"] for line in lines} >= {"admitted", "denied", "warned", "audited", "error"}


def test_text_output_and_located_errors_of_the_object_files(files, tmp_path, capsys):
    (tmp_path / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: [\n")
    out, err = batch(
        capsys,
        "-f",
        files["p.yaml"],
        "--objects",
        files["dump.yaml"],
        "--objects",
        str(tmp_path / "broken.yaml"),
        status=2,
    )
    assert out.startswith("UNUSABLE INPUT: 1 error(s), listed on stderr") and "\n24 objects: 9 denied" in out
    assert f"{tmp_path / 'broken.yaml'}:4:1: error: invalid YAML" in err
    assert "[" not in err.split("\n")[-1]  # no progress bar: stderr is no terminal


def test_objects_from_stdin(files):
    done = subprocess.run(
        [sys.executable, "-m", "evaluator", "batch", "-f", files["p.yaml"], "--objects", "-", "-o", "json"],
        input=Path(files["dump.tgz"]).read_bytes(),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["objects"] == 24 and done.stderr == b""


def test_progress_bar_only_on_a_terminal(files):
    command = [sys.executable, "-m", "evaluator", "batch", "-f", files["p.yaml"], "--objects", files["dump.yaml"]]
    piped = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert piped.returncode == 1 and "24/24" not in piped.stderr
    forced = subprocess.run([*command, "--progress"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "24/24" in forced.stderr
    main_fd, terminal = pty.openpty()
    try:
        on_tty = subprocess.run(command, stdout=subprocess.PIPE, stderr=terminal, cwd=ROOT, timeout=120)
        os.close(terminal)
        drawn = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the terminal is closed and drained
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main_fd)
    assert on_tty.returncode == 1 and b"24/24" in drawn
    assert b"24/24" not in on_tty.stdout


def test_bad_options(files, capsys):
    with pytest.raises(SystemExit):
        main(["batch", "-f", files["p.yaml"], "--objects", files["dump.yaml"], "--kubeconfig", "k"])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["batch", "-f", files["p.yaml"]])
    assert "one of the arguments --objects --kubeconfig is required" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["batch", "-f", files["p.yaml"], "--objects", files["dump.yaml"], "--jobs", "0"])
    assert "must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["batch", "-f", files["p.yaml"], "--objects", files["dump.yaml"], "-o", "html"])
    capsys.readouterr()
    assert main(["batch", "-f", files["p.yaml"], "--objects", files["dump.yaml"], "--context", "c"]) == 2
    assert capsys.readouterr().err == "error: --context needs --kubeconfig\n"


def _run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["batch", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_exit_status_gates_as_simulate_does(files, tmp_path, capsys):
    """0 none denied, 1 some denied (or warned with --fail-on warned), 2 unusable input (the README's table)."""
    run = ("-f", files["p.yaml"], "--objects", files["dump.yaml"])
    assert _run(capsys, *run)[0] == 1
    assert _run(capsys, *run, "--fail-on", "never")[0] == 0
    assert _run(capsys, *run, "--fail-on", "warned")[0] == 1
    allowed = tmp_path / "allowed.yaml"
    allowed.write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "a"}})
    )
    assert _run(capsys, "-f", files["p.yaml"], "--objects", str(allowed))[0] == 0
    warned = tmp_path / "warned.yaml"
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "a"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
        },
    }
    warned.write_text(yaml.safe_dump(deployment))
    assert _run(capsys, "-f", files["p.yaml"], "--objects", str(warned))[0] == 0
    status, out, _ = _run(capsys, "-f", files["p.yaml"], "--objects", str(warned), "--fail-on", "warned")
    assert (status, out.startswith("1 objects: 0 denied, 1 warned")) == (1, True), out


@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing policy file", "{missing}: error: cannot read file: No such file or directory"),
        ("missing dump", "{missing}: error: cannot read file: No such file or directory"),
        ("CEL compile error", "{cel}:9:42: error: spec.validations[0].expression: Invalid value"),
        ("YAML error in the policies", "{broken}:3:1: error: invalid YAML"),
        ("YAML error in the dump", "{broken}:3:1: error: invalid YAML"),
        ("binary dump", "{binary}: error: not UTF-8 text"),
        ("binary policy file", "{binary}: error: cannot read file:"),
        ("no policy", "{empty}: error: no policy found"),
        ("no objects", "{empty}: error: no objects found"),
    ],
)
def test_unusable_input_exits_2_with_located_errors(files, tmp_path, capsys, case, expected):
    paths = {name: str(tmp_path / name) for name in ("missing", "cel", "broken", "binary", "empty")}
    Path(paths["cel"]).write_text(DOCUMENTS.replace("object.spec.replicas <= 5", "object.spec.replicas <= "))
    Path(paths["broken"]).write_text("kind: Pod\nmetadata: {name: [\n")
    Path(paths["binary"]).write_bytes(bytes(range(128, 256)) * 4)
    Path(paths["empty"]).write_text("# nothing here\n")
    policies, dump = files["p.yaml"], files["dump.yaml"]
    arguments = {
        "missing policy file": (paths["missing"], dump),
        "missing dump": (policies, paths["missing"]),
        "CEL compile error": (paths["cel"], dump),
        "YAML error in the policies": (paths["broken"], dump),
        "YAML error in the dump": (policies, paths["broken"]),
        "binary dump": (policies, paths["binary"]),
        "binary policy file": (paths["binary"], dump),
        "no policy": (paths["empty"], dump),
        "no objects": (policies, paths["empty"]),
    }[case]
    for output in ("text", "json"):
        status, out, err = _run(capsys, "-f", arguments[0], "--objects", arguments[1], "-o", output)
        assert status == 2, (case, output, out, err)
        assert expected.format(**paths) in err, err
        if output == "text":
            assert out.startswith("UNUSABLE INPUT: ")
        else:
            assert expected.split(": error: ")[1].split(":")[0] in json.dumps(json.loads(out)["inputErrors"])
