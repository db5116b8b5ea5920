"""Kubernetes' own CRD validation-rule tests (tests/data/conformance/k8s-crd), judged as its README says.

Every case runs; the few we cannot pass yet are listed with their reason in `k8s_crd_skips.py` and
reported as skips (a listed case that starts passing fails the test, so the list stays honest).
"""

from __future__ import annotations

import pytest

from tests.shared_data import conformance_file, read_jsonl

from .k8s_crd_harness import CASES_FILE, judge
from .k8s_crd_skips import KNOWN_GAPS


def _cases() -> list:
    # conformance_file raises when the data is missing: collection fails, the suite never shrinks to nothing
    return [pytest.param(case, id=case["id"]) for case in read_jsonl(conformance_file("k8s-crd", "cases.jsonl"))]


@pytest.mark.parametrize("case", _cases())
def test_k8s_crd(case):
    problem = judge(case)
    gap = KNOWN_GAPS.get(case["id"])
    if gap is not None:
        if problem is None:
            pytest.fail(f"listed as a known gap ({gap}) but passes now: remove it from k8s_crd_skips.py")
        pytest.skip(f"{gap}: {problem}")
    assert problem is None, problem


def test_suite_is_complete():
    assert CASES_FILE.exists(), f"conformance data missing: {CASES_FILE}"
    ids = [case["id"] for case in read_jsonl(CASES_FILE)]
    assert len(ids) == 871
    stale = sorted(set(KNOWN_GAPS) - set(ids))
    assert not stale, f"known gaps that name no case: {stale}"
