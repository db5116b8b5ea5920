"""GeneratingPolicy rows (`isGeneratingPolicy`, or an unflagged result whose policy is a GeneratingPolicy), as
`kyverno test` scores them (commands/test/output.go): the policy runs on each resource the result names; each
object it generates is compared with the `generatedResource` / `generatedResources` files as generate rules'
objects are (`generate_rows.object_problem`), then the response's status with the expected result; a response
without objects checks the status only; no response at all (not matched) is `Not found`. A policy that does
not compile fails the test (the CLI stops), shown here as an error row."""

from __future__ import annotations

from typing import Any

from evaluator.cli.kyverno_test.folder import TestFolder
from evaluator.cli.kyverno_test.generate_rows import object_problem
from evaluator.cli.kyverno_test.rows import ERROR, FAILED, OK, Row, row_for
from evaluator.cli.kyverno_test.vpol_rows import vpol_test
from evaluator.policies.kyverno_gpol.cli_test import GpolTest

_TESTS: dict[int, tuple[TestFolder, GpolTest]] = {}


def _gpol_test(folder: TestFolder) -> GpolTest:
    cached = _TESTS.get(id(folder))
    if cached is None or cached[0] is not folder:
        if len(_TESTS) > 64:
            _TESTS.clear()
        cached = (folder, GpolTest(vpol_test(folder)))
        _TESTS[id(folder)] = cached
    return cached[1]


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    gpol = _gpol_test(folder)
    policy_name = str(result.get("policy", "")).split("/")[-1]
    policy = gpol.policies.get(policy_name)
    if policy is None:
        return row_for(
            folder, result, name, f"no GeneratingPolicy named {policy_name!r} in the test", FAILED, "missing"
        )
    if policy.error is not None:
        return row_for(folder, result, name, policy.error, ERROR)
    if not name:  # the CLI checks every resource of the test: one row, passing when each of them does
        rows = [_one(gpol, folder, result, policy, doc, gpol.vpol.name_of(doc)) for doc in gpol.vpol.resources]
        failed = [r for r in rows if not r.ok]
        message = "; ".join(f"{r.resource}: {r.message}" for r in failed) or f"{len(rows)} resources checked"
        status = FAILED if failed or not rows else OK
        return row_for(folder, result, "", message, status, ",".join(sorted({r.actual for r in rows})) or "none")
    doc = gpol.vpol.find(name)
    if doc is None:
        return row_for(folder, result, name, "resource not found", FAILED, "missing")
    return _one(gpol, folder, result, policy, doc, name)


def _one(gpol: GpolTest, folder: TestFolder, result: dict, policy: Any, doc: dict, name: str) -> Row:
    expected = str(result.get("result", ""))
    generated = gpol.generate(policy, doc, result)
    if generated.result is None:
        ok = expected == "skip"
        return row_for(folder, result, name, "Not found", OK if ok else FAILED, "skip" if ok else "fail")
    problems = []
    for obj in generated.objects:
        problem = object_problem(folder, result, obj)
        if problem:
            problems.append(problem)
    if generated.result != expected:
        problems.append(f"Want {expected}, got {generated.result}: {generated.message}")
    message = "; ".join(problems) or f"{len(generated.objects)} generated object(s) compared"
    return row_for(folder, result, name, message, FAILED if problems else OK, generated.result)
