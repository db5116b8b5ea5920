"""`simulate` with Kyverno's CEL policies: GeneratingPolicies and DeletingPolicies are cluster state, never taken
for the request; `--now` sets when the DeletingPolicies' next run is computed from, and the text output lists
what that run would delete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.evaluator.kyverno_cel_family.test_deleting_policy import OBJECTS, POLICY


def test_simulate_now_and_the_deletions_in_text_and_json(tmp_path: Path, capsys):
    (tmp_path / "all.yaml").write_text(OBJECTS + "---\n" + POLICY)  # the policy last: still not the request
    args = ["simulate", "-f", str(tmp_path / "all.yaml"), "--now", "2026-12-05T01:30:00+00:00"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "  cleanup-test-pods: next run 2026-12-06T01:00:00Z (schedule 0 1 * * *)" in out
    assert "    delete: Pod qa/old-test (every condition is true: is-test, in-a-test-namespace)" in out
    assert main([*args, "-o", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["request"]["object"]["kind"] == "ConfigMap"  # the last document that is not cluster state
    assert [d["now"] for d in result["deletions"]] == ["2026-12-05T01:30:00Z"]


def test_a_now_that_is_not_a_date_is_refused(tmp_path: Path, capsys):
    (tmp_path / "all.yaml").write_text(OBJECTS)
    with pytest.raises(SystemExit) as exited:
        main(["simulate", "-f", str(tmp_path / "all.yaml"), "--now", "tomorrow"])
    assert exited.value.code == 2
    assert "not an ISO 8601 date and time: 'tomorrow'" in capsys.readouterr().err
