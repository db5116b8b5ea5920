"""ValidatingAdmissionPolicy type checking cases (tests/data/conformance/k8s-typecheck), run through evaluator.typecheck."""

from __future__ import annotations

import pytest

from evaluator.typechecking import typecheck
from tests.shared_data import conformance_file, read_jsonl

DATA = conformance_file("k8s-typecheck", "cases.jsonl")


def _cases():
    return [pytest.param(case, id=case["id"]) for case in read_jsonl(DATA)]


def _gvk(text: str) -> dict:
    group_version, kind = text.split(", Kind=")
    group, _, version = group_version.rpartition("/")
    return {"group": group, "version": version, "kind": kind}


@pytest.mark.parametrize("case", _cases())
def test_k8s_typecheck(case):
    expect = case["expect"]
    assumes = case.get("assumes") or {}
    # "built-in" kinds resolve by themselves; anything else is given: a schema, or "not found"
    given = {
        gvk: (schema if isinstance(schema, dict) else None)
        for gvk, schema in (assumes.get("schemas") or {}).items()
        if schema != "built-in"
    }
    result = typecheck(case["policy"], schemas_by_kind=given)
    for gvr, kind in (assumes.get("resources") or {}).items():
        if kind is None:
            assert all(t["kind"].lower() not in gvr for t in result["typesMatched"])
    if "types_to_check" in expect:
        assert result["typesMatched"] == expect["types_to_check"]
        return
    for gvk_text, schema in (assumes.get("schemas") or {}).items():
        checked = _gvk(gvk_text) in result["typesChecked"]
        assert checked == (schema != "not found"), gvk_text
    warnings = result["status"]["typeChecking"].get("expressionWarnings", [])
    expected = expect["warnings"]
    assert [w["fieldRef"] for w in warnings] == [w["fieldRef"] for w in expected]
    for got, want in zip(warnings, expected):
        for part in want.get("warning_contains", []):
            assert part in got["warning"]
        if "exact_text" in want:
            assert got["warning"] == want["exact_text"]
