"""MutatingPolicy rows (`isMutatingPolicy`, or a result naming a MutatingPolicy / NamespacedMutatingPolicy), as
`kyverno test` scores them: `evaluator.policies.kyverno_mpol.cli_test` runs the resource through the test's
MutatingPolicies; each rule response of the named policy is compared as a ClusterPolicy mutate row is
(`mutate_rows.compared_row`: the patched resource against `patchedResources`, then the status). A result
naming no resource checks every resource of the test."""

from __future__ import annotations

from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.mutate_rows import as_loaded, compared_row
from evaluator.cli.kyverno_test.policy_rows import find_resource
from evaluator.cli.kyverno_test.rows import ERROR, FAILED, Row, no_such_policy, row_for
from evaluator.policies.kyverno_mpol.cli_test import MpolTest, TargetRun
from evaluator.policies.kyverno_mpol.policies import PolicyEntry

_TESTS: dict[int, tuple[TestFolder, MpolTest]] = {}


def mpol_test(folder: TestFolder) -> MpolTest:
    """One MpolTest per loaded test document (its files read once)."""
    cached = _TESTS.get(id(folder))
    if cached is None or cached[0] is not folder:
        if len(_TESTS) > 64:
            _TESTS.clear()

        def read(names: list[str]) -> list[dict]:
            docs: list[dict] = []
            for name in [names] if isinstance(names, str) else names or []:
                docs += [d for d in read_yaml(folder.base / str(name), []) if isinstance(d, dict)]
            return docs

        cached = (folder, MpolTest(folder.test, folder.base, read))
        _TESTS[id(folder)] = cached
    return cached[1]


def _checks(test: MpolTest, entry: PolicyEntry, doc: dict, result: dict) -> tuple[list, bool]:
    """(rule response, patched resource) pairs of the named policy on one resource, and whether it kept an
    empty response."""
    run = test.run(as_loaded(doc), result)
    rules, kept = run.policy(entry)
    return [(rule, run.patched) for rule in rules], kept


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    test = mpol_test(folder)
    entry = test.entry(str(result.get("policy", "")))
    if entry is None:
        return no_such_policy(folder, result, name)
    wanted = [dict(entry.document)]
    if not name:
        checks = [c for d in folder.resources for c in _checks(test, entry, d, result)[0]]
        return compared_row(folder, result, name, wanted, checks, skip_missing=True)
    doc = find_resource(folder.resources, name, str(result.get("kind", "")))
    if doc is None:
        target = find_resource(test.targets, name, str(result.get("kind", "")))
        if target is not None:
            loaded = as_loaded(target)
            checks = [
                check
                for trigger in folder.resources
                for check in TargetRun(test, as_loaded(trigger), result).patch(loaded, entry)
                if check[0]["result"] == "pass"
            ]
            if not checks:  # no policy patched the target: no target response, which the CLI reports as not found
                return _not_found(entry, result, name)
            return compared_row(folder, result, name, wanted, checks)
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    checks, kept = _checks(test, entry, doc, result)
    if not checks and not kept:
        return _not_found(entry, result, name)
    return compared_row(folder, result, name, wanted, checks)


def _not_found(entry: PolicyEntry, result: dict, name: str) -> Row:
    kind, expected = str(result.get("kind", "")), str(result.get("result", ""))
    return Row(entry.name, str(result.get("rule") or ""), name, kind, expected, "fail", FAILED, "Not found")
