"""Kyverno conformance: every case of tests/data/conformance/kyverno.

`kyverno-validate` cases run the way `kyverno test` builds its input; `vap` cases (ValidatingAdmissionPolicy
as Kyverno's CLI evaluates it) run through kyverno-test's own VAP rows; `needs_cluster` cases are reported as
skipped with the reasons the data gives. Known failures are listed, with reasons, in
kyverno_known_failures.md next to this file (their ids are xfail here). Run as a script for a summary by tag.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from evaluator.cli.kyverno_test.vap_rows import kyverno_vap_result
from evaluator.policies.kyverno import evaluate
from tests.shared_data import conformance_file

CASES = Path(os.environ.get("KYVERNO_CASES") or conformance_file("kyverno", "cases.jsonl"))
KNOWN = Path(__file__).with_name("kyverno_known_failures.md")


def load_cases() -> list[dict]:
    """The cases this suite can run offline (both engines)."""
    return [case for case in _all_cases() if not case.get("needs_cluster")]


def _all_cases() -> list[dict]:
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]


def needs_cluster_reason(case: dict) -> str:
    return "needs a cluster: " + "; ".join(case.get("needs_cluster_reason") or ["see the case"])


def known_failures() -> set[str]:
    if not KNOWN.exists():
        return set()
    return set(re.findall(r"^- `([^`]+)`", KNOWN.read_text(), re.M))


def build_inputs(case: dict) -> tuple[dict, dict]:
    resource = copy.deepcopy(case["resource"])
    meta = resource.setdefault("metadata", {})
    if case.get("namespace_defaulted"):
        meta["namespace"] = case.get("effective_namespace") or "default"
    op = case.get("operation") or "CREATE"
    request = {"operation": op, "namespace": meta.get("namespace", "")}
    if op == "DELETE":
        request["oldObject"] = resource
    else:
        request["object"] = resource
    if op == "UPDATE":
        request["oldObject"] = copy.deepcopy(resource)
    values: dict = {}
    user = case.get("userInfo")
    if user:
        request["userInfo"] = user.get("userInfo") or {}
        values["roles"] = user.get("roles") or []
        values["clusterRoles"] = user.get("clusterRoles") or []
    if case.get("variables"):
        values["variables"] = case["variables"]
    policy_name = case["policy"].split("/")[-1]
    if case.get("rule_values") and case.get("rule"):
        values["ruleValues"] = {policy_name: {case["rule"]: case["rule_values"]}}
    if case.get("foreach_values") and case.get("rule"):
        values["foreachValues"] = {policy_name: {case["rule"]: case["foreach_values"]}}
    if case.get("api_call_responses"):
        values["apiCallResponses"] = case["api_call_responses"]
    if case.get("global_context_entries"):
        values["globalContext"] = {e["name"]: global_entry_value(e) for e in case["global_context_entries"]}
    if case.get("cluster_resources"):
        values["apiCallsFromDocuments"] = True
    if case.get("namespace_labels") is not None:
        values["namespaceLabels"] = case["namespace_labels"]
    return request, values


def global_entry_value(entry: dict) -> object:
    """A CLI global-context mock: inline resources, or data with projections."""
    if "resources" in entry:
        return entry["resources"]
    data = entry.get("data")
    if entry.get("projections"):
        import jmespath

        return {p["name"]: jmespath.search(p["path"], data) for p in entry["projections"]}
    return data


def run_vap_case(case: dict) -> tuple[bool, str]:
    """A ValidatingAdmissionPolicy case, as kyverno-test evaluates a VAP row."""
    kinds = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
    [policy] = [p for p in case["policies"] if p["kind"] == kinds[0] and p["metadata"]["name"] == case["policy"]]
    bindings = [p for p in case["policies"] if p["kind"] == kinds[1]]
    params = [p for p in case["policies"] if p["kind"] not in kinds]
    outcome = kyverno_vap_result(
        policy,
        bindings,
        case["resource"],
        namespace_labels=case.get("namespace_labels"),
        params=params,
        user_info=(case.get("userInfo") or {}).get("userInfo"),
    )
    if outcome is None:
        # no binding or constraint selects it: `kyverno test` prints pass (Excluded)
        return case["expect"] in ("skip", "pass"), "not applicable"
    return outcome.result == case["expect"], f"{outcome.result}: {outcome.message}"


def run_case(case: dict) -> tuple[bool, str]:
    if case["engine"] == "vap":
        return run_vap_case(case)
    request, values = build_inputs(case)
    results = evaluate(case["policies"], request, documents=case.get("cluster_resources") or [], values=values)
    policy_name = case["policy"].split("/")[-1]
    mine = [r for r in results if r["policy"] == policy_name]
    if not mine:
        return case["expect"] == "skip", "policy not evaluated"
    rules = mine[0]["rules"]
    if case.get("rule"):
        names = {case["rule"], "autogen-" + case["rule"], "autogen-cronjob-" + case["rule"]}
        rules = [r for r in rules if r["rule"] in names]
    if not rules:
        # `kyverno test` prints "pass (Excluded)" when no rule response exists; accept that for skip and pass
        return case["expect"] in ("skip", "pass"), "not applicable"
    ok = all(r["result"] == case["expect"] for r in rules)
    return ok, "; ".join(f"{r['rule']}={r['result']}: {r['message']}" for r in rules)


_CASES = load_cases()
_KNOWN = known_failures()
_PARAMS = [
    pytest.param(
        c, id=c["id"], marks=[pytest.mark.skip(reason=needs_cluster_reason(c))] if c.get("needs_cluster") else []
    )
    for c in _all_cases()
]


def test_every_engine_of_the_data_is_run() -> None:
    """A new engine in the data must get a runner here, not vanish from the counts."""
    assert {c["engine"] for c in _all_cases()} == {"kyverno-validate", "vap"}
    assert sum(c["engine"] == "vap" for c in _CASES) >= 190


@pytest.mark.parametrize("case", _PARAMS)
def test_kyverno_case(case: dict) -> None:
    if case["id"] in _KNOWN:
        pytest.xfail("listed in kyverno_known_failures.md")
    ok, detail = run_case(case)
    assert ok, f"expected {case['expect']}, got {detail}"


def summary() -> None:
    by_tag: Counter = Counter()
    ok_tag: Counter = Counter()
    failures = []
    for case in _CASES:
        try:
            ok, detail = run_case(case)
        except Exception as err:  # a crash is a failure to report, not to hide
            ok, detail = False, f"CRASH {type(err).__name__}: {err}"
        for tag in case["features"]:
            by_tag[tag] += 1
            ok_tag[tag] += ok
        if not ok:
            failures.append((case["id"], case["expect"], detail))
    total = len(_CASES)
    print(f"passed {total - len(failures)}/{total} = {100 * (total - len(failures)) / max(total, 1):.2f}%")
    for tag, n in by_tag.most_common():
        print(f"  {tag:32s} {ok_tag[tag]:5d}/{n}")
    if "-v" in sys.argv:
        for f in failures:
            print("FAIL", f[0], "expected", f[1], "->", f[2][:300])


if __name__ == "__main__":
    summary()
