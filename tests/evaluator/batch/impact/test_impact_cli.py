"""`admission-playground impact`: the corpus kinds, policy sets from files, directories and git revisions,
every output, the exit status (1 newly denied, 0 else or with --fail-on never, 2 unusable input) and
located input problems on stderr."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from evaluator.batch.impact.sample_log import audit_events, audit_log_lines, policy_change
from evaluator.cli import main


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    base, head = policy_change()
    (tmp_path / "base.yaml").write_text(yaml.safe_dump_all(base))
    (tmp_path / "head").mkdir()
    for i, doc in enumerate(head):
        (tmp_path / "head" / f"{i:02}-{doc['metadata']['name']}.yaml").write_text(yaml.safe_dump(doc))
    (tmp_path / "audit.log").write_text("".join(audit_log_lines(200, seed=2)))
    creates = [
        e["requestObject"] for e in audit_events(200, seed=2) if e.get("verb") == "create" and e.get("requestObject")
    ]
    (tmp_path / "dump.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": creates}))
    return {p.name: p for p in tmp_path.iterdir()}


def impact(capsys, *args: str, status: int) -> tuple[str, str]:
    code = main(["impact", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == status, err
    return out, err


def test_an_audit_log_in_every_output(capsys, files):
    common = ("--base", files["base.yaml"], "--head", files["head"], "--audit-log", files["audit.log"])
    data = json.loads(impact(capsys, *common, "-o", "json", status=1)[0])
    assert data["summary"]["newlyDenied"] > 0 and data["source"]["events"] == 200
    assert impact(capsys, *common, "-o", "markdown", status=1)[0].startswith("### Policy change impact")
    assert impact(capsys, *common, "-o", "junit", status=1)[0].startswith("<?xml")
    assert impact(capsys, *common, "-o", "csv", status=1)[0].startswith("index,line,time,operation")
    assert "requests change" in impact(capsys, *common, status=1)[0]
    assert impact(capsys, *common, "--fail-on", "never", status=0)
    pooled = json.loads(impact(capsys, *common, "-o", "json", "-j", "2", status=1)[0])
    assert pooled == data


def test_no_change_passes_the_gate(capsys, files):
    out, _ = impact(
        capsys,
        "--base",
        files["base.yaml"],
        "--head",
        files["base.yaml"],
        "--audit-log",
        files["audit.log"],
        "--fail-on",
        "changed",
        status=0,
    )
    assert out.startswith("0 of ")


def test_a_dump(capsys, files):
    data = json.loads(
        impact(
            capsys,
            "--base",
            files["base.yaml"],
            "--head",
            files["head"],
            "--objects",
            files["dump.yaml"],
            "-o",
            "json",
            status=1,
        )[0]
    )
    assert data["source"]["format"] == "objects" and data["summary"]["operations"].keys() == {"CREATE"}


def test_a_git_revision(capsys, files, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "policies").mkdir()
    (repo / "policies" / "p.yaml").write_text(files["base.yaml"].read_text())
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (repo / "policies" / "p.yaml").write_text("")
    monkeypatch.chdir(repo)
    from_git = json.loads(
        impact(
            capsys,
            "--base",
            "HEAD:policies/",
            "--head",
            files["head"],
            "--audit-log",
            files["audit.log"],
            "-o",
            "json",
            status=1,
        )[0]
    )
    from_file = json.loads(
        impact(
            capsys,
            "--base",
            files["base.yaml"],
            "--head",
            files["head"],
            "--audit-log",
            files["audit.log"],
            "-o",
            "json",
            status=1,
        )[0]
    )
    assert from_git["summary"] == from_file["summary"]
    _, err = impact(
        capsys, "--base", "nosuchrev:policies/", "--head", files["head"], "--audit-log", files["audit.log"], status=2
    )
    assert "nosuchrev:policies/: error: no such file, and no git revision 'nosuchrev' here" in err


def test_unusable_input_is_located(capsys, files, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: [\n")
    out, err = impact(capsys, "--base", bad, "--head", files["head"], "--audit-log", files["audit.log"], status=2)
    assert out.startswith("UNUSABLE INPUT") and f"{bad}:3:1: error:" in err
    _, err = impact(
        capsys, "--base", files["base.yaml"], "--head", files["head"], "--audit-log", tmp_path / "missing.log", status=2
    )
    assert "missing.log: error: cannot read file" in err
    empty = tmp_path / "empty.log"
    empty.write_text("\n")
    _, err = impact(capsys, "--base", files["base.yaml"], "--head", files["head"], "--audit-log", empty, status=2)
    assert "no audit event found" in err
    nopolicy = tmp_path / "cm.yaml"
    nopolicy.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    _, err = impact(capsys, "--base", nopolicy, "--head", nopolicy, "--audit-log", files["audit.log"], status=2)
    assert "no policy found" in err


def test_a_metadata_log_is_unusable_and_says_why(capsys, files, tmp_path):
    log = tmp_path / "metadata.log"
    events = (
        {k: v for k, v in e.items() if k not in ("requestObject", "responseObject")} | {"level": "Metadata"}
        for e in audit_events(50)
    )
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    out, err = impact(capsys, "--base", files["base.yaml"], "--head", files["head"], "--audit-log", log, status=2)
    assert "holds no request bodies (50 events" in err and "NOTHING REPLAYED" in out


def test_malformed_lines_are_warnings_and_the_rest_replays(capsys, files, tmp_path):
    log = tmp_path / "broken.log"
    lines = files["audit.log"].read_text().splitlines(keepends=True)
    lines.insert(4, '{"kind": "Event", "verb": \n')
    log.write_text("".join(lines))
    out, err = impact(capsys, "--base", files["base.yaml"], "--head", files["head"], "--audit-log", log, status=1)
    assert f"{log}:5:27: warning: not JSON: Expecting value" in err
    assert "1 malformed lines" in out


def test_a_live_cluster_is_listed_for_the_kinds_both_sets_match(capsys, files, monkeypatch):
    from evaluator.batch import cluster

    creates = yaml.safe_load(files["dump.yaml"].read_text())["items"]
    asked: dict = {}

    def list_objects(kubeconfig, context=None, documents=()):
        asked.update(kubeconfig=kubeconfig, context=context, documents=len(documents))
        return creates, []

    monkeypatch.setattr(cluster, "list_objects", list_objects)
    monkeypatch.setattr(cluster, "list_namespaces", lambda kubeconfig, context=None: ([], []))
    out, _ = impact(
        capsys,
        "--base",
        files["base.yaml"],
        "--head",
        files["head"],
        "--kubeconfig",
        "kc",
        "--context",
        "dev",
        "-o",
        "json",
        status=1,
    )
    data = json.loads(out)
    base, head = policy_change()
    assert asked == {"kubeconfig": "kc", "context": "dev", "documents": len(base) + len(head)}
    assert data["source"] == {"format": "cluster", "source": "kc", "objects": len(creates)}
    assert data["summary"]["requests"] == len(creates)
