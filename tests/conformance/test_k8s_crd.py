"""Kubernetes' own CRD validation-rule tests (tests/data/conformance/k8s-crd), judged as its README says.

Every case runs; the few we cannot pass yet are listed with their reason in `k8s_crd_skips.py` and
reported as skips (a listed case that starts passing fails the test, so the list stays honest).
"""
from __future__ import annotations

import json

import pytest

from .k8s_crd_harness import CASES_FILE, judge
from .k8s_crd_skips import KNOWN_GAPS


def _cases() -> list:
    if not CASES_FILE.exists():  # collected as one failing test, never a silent skip
        return [pytest.param(None, id="data-file-missing")]
    params = []
    for line in CASES_FILE.read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            params.append(pytest.param(case, id=case["id"]))
    return params


@pytest.mark.parametrize("case", _cases())
def test_k8s_crd(case):
    assert case is not None, f"conformance data missing: {CASES_FILE}"
    problem = judge(case)
    gap = KNOWN_GAPS.get(case["id"])
    if gap is not None:
        if problem is None:
            pytest.fail(f"listed as a known gap ({gap}) but passes now: remove it from k8s_crd_skips.py")
        pytest.skip(f"{gap}: {problem}")
    assert problem is None, problem


def test_suite_is_complete():
    assert CASES_FILE.exists(), f"conformance data missing: {CASES_FILE}"
    ids = [json.loads(line)["id"] for line in CASES_FILE.read_text().splitlines() if line.strip()]
    assert len(ids) == 871
    stale = sorted(set(KNOWN_GAPS) - set(ids))
    assert not stale, f"known gaps that name no case: {stale}"
