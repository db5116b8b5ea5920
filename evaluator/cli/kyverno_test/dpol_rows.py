"""DeletingPolicy rows (`isDeletingPolicy`, or an unflagged result whose policy is a DeletingPolicy), scored by
`evaluator.policies.kyverno_dpol.cli_test`; a result naming no resource checks every resource and JSON payload
of the test, and its one row passes when each of them does."""

from __future__ import annotations

from evaluator.cli.kyverno_test.folder import TestFolder
from evaluator.cli.kyverno_test.rows import Row
from evaluator.cli.kyverno_test.vpol_rows import combined, vpol_test
from evaluator.policies.kyverno_dpol.cli_test import DpolTest

_TESTS: dict[int, tuple[TestFolder, DpolTest]] = {}


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    cached = _TESTS.get(id(folder))
    if cached is None or cached[0] is not folder:
        if len(_TESTS) > 64:
            _TESTS.clear()
        cached = (folder, DpolTest(vpol_test(folder)))
        _TESTS[id(folder)] = cached
    return combined(cached[1].rows({**result, "resources": [name], "resource": None} if name else result), result)
