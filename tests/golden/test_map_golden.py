"""Golden cases for MutatingAdmissionPolicy: the seed's `set-default-owner` example and our own mutations.

Each YAML file under map/ holds `documents` and either one `request` + `expect` or a list of `requests`.
`patched_object` compares semantically (zero values are absent values); `patch`, `message`, `outcomes`,
`reinvoked` and `mutation_errors` compare exactly.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evaluator.simulation import simulate
from evaluator.mutating.diff import semantic_form

CASES = sorted((Path(__file__).parent / "map").glob("*.yaml"))


def _requests(case: dict) -> list[tuple[dict, dict]]:
    if "requests" in case:
        return [(item["request"], item["expect"]) for item in case["requests"]]
    return [(case["request"], case["expect"])]


def _check(result: dict, expect: dict) -> None:
    status = result["status"] or {}
    assert result["allowed"] is expect["allowed"], (status, result["policies"])
    if "message" in expect:
        assert status["message"] == expect["message"]
    if "patched_object" in expect:
        assert semantic_form(result["patchedObject"]) == semantic_form(expect["patched_object"])
    if "patch" in expect:
        assert result["mutation"]["patch"] == expect["patch"]
    if "outcomes" in expect:
        outcomes = [r["outcome"] for r in result["policies"] if r.get("kind") == "MutatingAdmissionPolicy"]
        assert outcomes == expect["outcomes"]
    if "reinvoked" in expect:
        assert result["mutation"]["reinvoked"] == expect["reinvoked"]
    if "mutation_errors" in expect:
        assert [e["message"] for e in result["mutation"]["errors"]] == expect["mutation_errors"]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden(path: Path) -> None:
    case = yaml.safe_load(path.read_text())
    for request, expect in _requests(case):
        result = simulate(case["documents"], request)
        assert not [e for e in result["errors"] if e.get("severity") == "error"], result["errors"]
        _check(result, expect)
