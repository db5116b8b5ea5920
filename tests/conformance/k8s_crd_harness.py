"""Runs one case of tests/data/conformance/k8s-crd and judges it as the suite's README says.

`judge(case)` returns None when the case passes, or the reason it does not; `KNOWN_GAPS` (in
`k8s_crd_skips.py`) lists the kinds of cases we cannot pass yet, each with its reason.
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

from evaluator import crd

DATA = Path(__file__).resolve().parents[1] / "data" / "conformance" / "k8s-crd"
CASES_FILE = DATA / "cases.jsonl"


def case_schema(case: dict) -> dict:
    schema = copy.deepcopy(case.get("schema") or {})
    rule = case.get("rule")
    if rule and "rule" in rule:
        schema["x-kubernetes-validations"] = [rule]
    return schema


def _validate(case: dict) -> dict:
    env = case.get("env") or {}
    root_path = env.get("rootPath", "root")
    return crd.validate(
        case_schema(case),
        case.get("self"),
        case.get("oldSelf"),
        is_resource_root=bool(env.get("isResourceRoot", False)),
        cost_budget=int(env.get("costBudget", 10_000_000)),
        per_call_limit=int(env.get("perCallLimit", 1_000_000)),
        ratcheting=bool(env.get("ratcheting", False)),
        root_path=root_path,
        _decl_type_is_resource_root=env.get("declTypeIsResourceRoot"),
    )


def judge(case: dict) -> str | None:
    expect = case["expect"]
    if "crd_errors" in expect:
        return judge_crd(case)
    if any(k.startswith("field_path") for k in expect):
        return judge_field_path(case)
    if (
        "compiles" in expect
        or "compile_error_contains" in expect
        or "message_expression_compile_error_contains" in expect
    ):
        return judge_compile(case)
    return judge_validation(case)


def judge_field_path(case: dict) -> str | None:
    expect = case["expect"]
    result = crd.validate_field_path(case.get("schema") or {}, case["rule"]["fieldPath"])
    if "field_path_error_contains" in expect:
        if result["valid"] or expect["field_path_error_contains"] not in (result["error"] or ""):
            return f"expected error containing {expect['field_path_error_contains']!r}, got {result}"
        return None
    if result["valid"] != expect.get("field_path_valid", True):
        return f"valid: expected {expect.get('field_path_valid')}, got {result}"
    if "field_path_resolved" in expect and result["path"] != expect["field_path_resolved"]:
        return f"resolved: expected {expect['field_path_resolved']!r}, got {result['path']!r}"
    return None


def judge_compile(case: dict) -> str | None:
    expect = case["expect"]
    env = case.get("env") or {}
    results = crd.compile_rules(
        case_schema(case),
        is_resource_root=bool(env.get("isResourceRoot", False)),
        per_call_limit=int(env.get("perCallLimit", 1_000_000)),
    )
    if len(results) != 1:
        return f"expected one compiled rule, got {len(results)}"
    r = results[0]
    if "compile_error_contains" in expect:
        if not r["error"] or expect["compile_error_contains"] not in r["error"]:
            return f"expected compile error containing {expect['compile_error_contains']!r}, got {r['error']!r}"
        return None
    if "message_expression_compile_error_contains" in expect:
        want = expect["message_expression_compile_error_contains"]
        if not r.get("messageExpressionError") or want not in r["messageExpressionError"]:
            return f"expected messageExpression error containing {want!r}, got {r.get('messageExpressionError')!r}"
        return None
    if expect.get("compiles") and r["error"]:
        return f"expected to compile, got {r['error']}"
    if "uses_old_self" in expect and r["usesOldSelf"] != expect["uses_old_self"]:
        return f"usesOldSelf: expected {expect['uses_old_self']}, got {r['usesOldSelf']}"
    if expect.get("program_nil") and r.get("program"):
        return "expected no program for an empty rule"
    cost = r["maxCost"]
    if "estimated_cost" in expect and cost != expect["estimated_cost"]:
        return f"estimated cost: expected {expect['estimated_cost']}, got {cost}"
    if "estimated_cost_at_least" in expect and cost < expect["estimated_cost_at_least"]:
        return f"estimated cost: expected at least {expect['estimated_cost_at_least']}, got {cost}"
    if "estimated_cost_at_most" in expect and cost > expect["estimated_cost_at_most"]:
        return f"estimated cost: expected at most {expect['estimated_cost_at_most']}, got {cost}"
    if expect.get("estimated_cost_nonzero") and cost == 0:
        return "estimated cost: expected non-zero"
    return None


def judge_validation(case: dict) -> str | None:
    expect = case["expect"]
    env = case.get("env") or {}
    if env.get("withOpenAPISchemaValidation"):
        from evaluator.crd.custom_resource import validate_custom_resource

        result = validate_custom_resource(
            case_schema(case), case.get("self"), case.get("oldSelf"), root_path=env.get("rootPath", "root")
        )
    else:
        result = _validate(case)
    errors = result["errors"]
    texts = [e["text"] for e in errors]
    budget = int(env.get("costBudget", 10_000_000))
    if expect.get("valid"):
        if errors:
            return f"expected valid, got errors {texts}"
        if "warnings" in expect and Counter(result["warnings"]) != Counter(expect["warnings"]):
            return f"warnings: expected {expect['warnings']}, got {result['warnings']}"
    if "runtime_cost" in expect and budget - result["remainingBudget"] != expect["runtime_cost"]:
        return f"runtime cost: expected {expect['runtime_cost']}, got {budget - result['remainingBudget']}"
    if "remaining_budget" in expect and result["remainingBudget"] != expect["remaining_budget"]:
        return f"remaining budget: expected {expect['remaining_budget']}, got {result['remainingBudget']}"
    if "error_count" in expect and len(errors) != expect["error_count"]:
        return f"error count: expected {expect['error_count']}, got {len(errors)}: {texts}"
    if "error_type" in expect and any(e["type"] != expect["error_type"] for e in errors):
        return f"error type: expected {expect['error_type']}, got {[e['type'] for e in errors]}"
    if "warnings" in expect and not expect.get("valid") and Counter(result["warnings"]) != Counter(expect["warnings"]):
        return f"warnings: expected {expect['warnings']}, got {result['warnings']}"
    if "errors_contain" in expect:
        problem = _match_contains(expect["errors_contain"], expect.get("errors_match", "every"), texts)
        if problem:
            return problem
    if "errors_fields" in expect:
        want = Counter((e["type"], e["field"]) for e in expect["errors_fields"])
        got = Counter((e["type"], e["field"]) for e in errors)
        if want != got:
            return f"error fields: expected {sorted(want)}, got {sorted(got)}"
    if "errors_exact" in expect and set(texts) != set(expect["errors_exact"]):
        return f"errors: expected {expect['errors_exact']}, got {texts}"
    return None


def _match_contains(wanted: list[str], how: str, texts: list[str]) -> str | None:
    if how == "every":
        if not texts:
            return f"expected errors containing {wanted}, got none"
        for w in wanted:
            if not all(w in t for t in texts):
                return f"every error should contain {w!r}: {texts}"
        return None
    if how == "any":
        if not any(w in t for w in wanted for t in texts):
            return f"no error contains {wanted}: {texts}"
        return None
    if how == "each_found":
        missing = [w for w in wanted if not any(w in t for t in texts)]
        return f"not found {missing} in {texts}" if missing else None
    if how == "one_to_one":
        if len(wanted) != len(texts):
            return f"expected {len(wanted)} errors ({wanted}), got {texts}"
        return None if _assign(wanted, texts) else f"errors {texts} do not match {wanted} one to one"
    return f"unknown errors_match {how!r}"


def _assign(wanted: list[str], texts: list[str]) -> bool:
    """A perfect matching of wanted substrings to distinct error texts (small, so backtracking)."""

    def go(i: int, used: frozenset[int]) -> bool:
        if i == len(wanted):
            return True
        return any(go(i + 1, used | {j}) for j, t in enumerate(texts) if j not in used and wanted[i] in t)

    return go(0, frozenset())


def judge_crd(case: dict) -> str | None:
    from evaluator.crd.definition import validate_crd_case

    errors = validate_crd_case(case)
    want = list(case["expect"]["crd_errors"])
    remaining = list(errors)
    for w in want:
        hit = next(
            (
                e
                for e in remaining
                if e["type"] == w["type"]
                and e["field"] == w["field"]
                and ("contains" not in w or w["contains"] in e["text"])
            ),
            None,
        )
        if hit is None:
            return f"missing CRD error {w}; got {[e['text'] for e in errors]}"
        remaining.remove(hit)
    if remaining:
        return f"unexpected CRD errors {[e['text'] for e in remaining]}"
    return None
