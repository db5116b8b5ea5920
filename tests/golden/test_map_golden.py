"""Golden cases for MutatingAdmissionPolicy: the seed's `set-default-owner` example and our own mutations.

Each YAML file under map/ is a golden case (see golden_cases.py).
`patched_object` compares semantically (zero values are absent values) after the API server's defaulting of
the built-in kind (the files state the mutation; the object as admitted is also defaulted); `patch`, `message`,
`outcomes`, `reinvoked` and `mutation_errors` compare exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.k8s.defaulting import default_object
from evaluator.policies.mutating.diff import semantic_form
from evaluator.simulation import simulate
from tests.golden.golden_cases import check_status, golden_cases, load_case


def _check(result: dict, expect: dict) -> None:
    check_status(result, expect)
    if "patched_object" in expect:
        expected = default_object(expect["patched_object"]).object
        assert semantic_form(result["patchedObject"]) == semantic_form(expected)
    if "patch" in expect:
        assert result["mutation"]["patch"] == expect["patch"]
    if "outcomes" in expect:
        outcomes = [r["outcome"] for r in result["policies"] if r.get("kind") == "MutatingAdmissionPolicy"]
        assert outcomes == expect["outcomes"]
    if "reinvoked" in expect:
        assert result["mutation"]["reinvoked"] == expect["reinvoked"]
    if "mutation_errors" in expect:
        assert [e["message"] for e in result["mutation"]["errors"]] == expect["mutation_errors"]


@pytest.mark.parametrize("path", golden_cases("map"))
def test_golden(path: Path) -> None:
    documents, pairs = load_case(path)
    for request, expect in pairs:
        result = simulate(documents, request)
        assert not [e for e in result["errors"] if e.get("severity") == "error"], result["errors"]
        _check(result, expect)
