"""Kyverno ValidatingPolicy conformance: every case of tests/data/conformance/kyverno-vpol, scored as its
README says. Cases we cannot run are skips with their reason (tests/conformance/kyverno_vpol_cases.py);
the suite fails when its data is missing. Run as a script for the pass rate by feature tag."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from tests.conformance.kyverno_vpol_cases import UNSUPPORTED_TAGS, run_case
from tests.shared_data import conformance_file, read_jsonl

CASES_FILE = conformance_file("kyverno-vpol", "cases.jsonl")  # missing data fails collection
DATA = CASES_FILE.parent
_CASES = read_jsonl(CASES_FILE)


def skip_reason(case: dict) -> str | None:
    for tag in case["features"]:
        if tag in UNSUPPORTED_TAGS:
            return UNSUPPORTED_TAGS[tag]
    return None


def test_data_present() -> None:
    assert CASES_FILE.exists(), f"missing conformance data: {CASES_FILE}"
    assert len(_CASES) >= 800 and (DATA / "README.md").exists()


@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_kyverno_vpol_case(case: dict) -> None:
    reason = skip_reason(case)
    if reason:
        pytest.skip(reason)
    ok, detail = run_case(case)
    assert ok, f"expected {case['expect']}, got {detail}"


def summary() -> None:
    by_tag: Counter = Counter()
    ok_tag: Counter = Counter()
    failures, skipped = [], 0
    for case in _CASES:
        if skip_reason(case):
            skipped += 1
            continue
        try:
            ok, detail = run_case(case)
        except Exception as err:  # a crash is a failure to report
            ok, detail = False, f"CRASH {type(err).__name__}: {err}"
        for tag in case["features"]:
            by_tag[tag] += 1
            ok_tag[tag] += ok
        if not ok:
            failures.append((case["id"], case["expect"], detail))
    total = len(_CASES)
    passed = total - skipped - len(failures)
    print(f"passed {passed}/{total} = {100 * passed / max(total, 1):.2f}% (skipped {skipped})")
    for tag, n in by_tag.most_common():
        print(f"  {tag:40s} {ok_tag[tag]:5d}/{n}")
    if "-v" in sys.argv:
        for f in failures:
            print("FAIL", f[0], "expected", f[1], "->", f[2][:400])


if __name__ == "__main__":
    summary()
