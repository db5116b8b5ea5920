"""Kyverno's JMESPath functions against the tables of Kyverno's own tests (see
tests/data/conformance/kyverno-jmespath/README.md): the value each expression yields, or that it fails."""

from __future__ import annotations

import pytest

from evaluator.policies.kyverno.jmes import JMESPathError, search
from evaluator.policies.kyverno.jmes_functions import FunctionError
from tests.shared_data import conformance_file, read_jsonl

from .skips import KYVERNO_JMESPATH


def _cases():
    for n, case in enumerate(read_jsonl(conformance_file("kyverno-jmespath", "cases.jsonl"))):
        case_id = f"{case['test']}/{n}"
        marks = [pytest.mark.skip(reason=KYVERNO_JMESPATH[case_id])] if case_id in KYVERNO_JMESPATH else []
        yield pytest.param(case, id=case_id, marks=marks)


def _same(got, want) -> bool:
    """Go's DeepEqual on decoded JSON: numbers compare by value, but a bool is never a number."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and float(got) == float(want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_same(got[k], want[k]) for k in want)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize("case", list(_cases()))
def test_kyverno_jmespath(case):
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises((JMESPathError, FunctionError)) as info:
            search(case["expression"], case.get("data", {}))
        if isinstance(expect["error"], str):
            assert expect["error"] in str(info.value)
        return
    got = search(case["expression"], case.get("data", {}))
    assert _same(got, expect["value"]), f"got {got!r}, want {expect['value']!r}"
