"""ValidatingPolicy rows (`isValidatingPolicy`, or an unflagged result whose policy is a ValidatingPolicy), as
`kyverno test` evaluates them: `evaluator.policies.kyverno_vpol.cli_test` builds the inputs and scores the
rows (resources by name, every variant's rule responses, pass (Excluded), payloads, context and mocks).
A result that names no resource checks every resource and payload of the test: its one row passes when
each of them does."""

from __future__ import annotations

import dataclasses

from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.rows import EXCLUDED, FAILED, OK, Row, reported
from evaluator.policies.kyverno_vpol.cli_test import VpolRow, VpolTest

_TESTS: dict[int, tuple[TestFolder, VpolTest]] = {}


def vpol_test(folder: TestFolder) -> VpolTest:
    """One VpolTest per loaded test document (its files read once; read problems join the folder's)."""
    cached = _TESTS.get(id(folder))
    if cached is None or cached[0] is not folder:
        if len(_TESTS) > 64:
            _TESTS.clear()

        def read(names: list[str]) -> list[dict]:
            docs: list[dict] = []
            for name in names or []:
                docs += [d for d in read_yaml(folder.base / str(name), []) if isinstance(d, dict)]
            return docs

        cached = (folder, VpolTest(folder.test, folder.base, read))
        _TESTS[id(folder)] = cached
    return cached[1]


def _scored(row: VpolRow, folder: TestFolder) -> VpolRow:
    """The row with a failure of an unscored policy reported as warn (as `kyverno test` does)."""
    name = row.policy.split("/")[-1]
    policy = next((p for p in folder.policies if (p.get("metadata") or {}).get("name") == name), None)
    actual = reported(policy, row.actual)
    if actual == row.actual:
        return row
    return dataclasses.replace(row, actual=actual, ok=actual == row.expected)


def _row(row: VpolRow, result: dict) -> Row:
    status = OK if row.ok else FAILED
    if row.ok and row.message == "pass (Excluded)":
        status = EXCLUDED
    return Row(
        row.policy, str(result.get("rule") or ""), row.resource, row.kind, row.expected, row.actual, status, row.message
    )


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    vpol = vpol_test(folder)
    rows = [
        _scored(r, folder) for r in vpol.rows({**result, "resources": [name], "resource": None} if name else result)
    ]
    return combined(rows, result)


def combined(rows: list[VpolRow], result: dict) -> Row:
    """One row for a result: its single row, or all of them (a result naming no resource) in one."""
    if len(rows) == 1:
        return _row(rows[0], result)
    failed = [r for r in rows if not r.ok]
    actual = ",".join(sorted({r.actual for r in rows})) or "none"
    message = (
        "; ".join(f"{r.resource}: want {r.expected}, got {r.actual}" for r in failed)
        or f"{len(rows)} resources and payloads checked"
    )
    return Row(
        str(result.get("policy", "")),
        str(result.get("rule") or ""),
        "",
        str(result.get("kind", "")),
        str(result.get("result", "")),
        actual,
        FAILED if failed or not rows else OK,
        message,
    )
