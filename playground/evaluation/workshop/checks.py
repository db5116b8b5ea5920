"""Exercise checks: a sample request with an expectation, richer than a project's `expected`.

    expected: {allowed?, outcome?, messageContains?            (as playground.core.expectations)
               mutated?: {"/json/pointer": value, ...}          (MAP: fields of the patched object)
               auditAnnotations?: {"key": "value", ...}
               kyverno?: [{policy, rule, result}]}              (Kyverno rule results: pass|fail|skip|warn|error)

The base part is judged by the playground's own verdict function; the rest is judged here.

Each check has a `title` written by the author ("a Deployment with 7 replicas is denied"): students see it
with their own outcome and message, and the comparison with the expectation (which may quote the answer)
only when the author set `showExpected` (YAML `show_expected: true`).
"""

from __future__ import annotations

import json

from playground.core.errors import ServiceError
from playground.core.expectations import clean_expected, verdict

EXTRA_KEYS = ("mutated", "auditAnnotations", "kyverno")
KYVERNO_RESULTS = ("pass", "fail", "skip", "warn", "error")
_MISSING = object()


def split_expected(expected: dict | None) -> tuple[dict | None, dict]:
    """(the part a project's SampleRequest can hold, the workshop-only part)."""
    expected = dict(expected or {})
    extra = {key: expected.pop(key) for key in EXTRA_KEYS if key in expected}
    return (expected or None), extra


def clean_check(check, index: int) -> dict:
    """Validate one check from an exercise file; errors name the check."""
    if not isinstance(check, dict) or not isinstance(check.get("text"), str):
        raise ServiceError("invalid_exercise", f"checks[{index}] needs a text")
    name = str(check.get("name") or f"check-{index + 1}")
    base, extra = split_expected(check.get("expected"))
    clean_expected(base, name)
    if "mutated" in extra and not (
        isinstance(extra["mutated"], dict) and all(str(k).startswith("/") for k in extra["mutated"])
    ):
        raise ServiceError(
            "invalid_exercise", f"{name}: expected.mutated maps JSON pointers to values", path="expected.mutated"
        )
    if "auditAnnotations" in extra and not isinstance(extra["auditAnnotations"], dict):
        raise ServiceError(
            "invalid_exercise", f"{name}: expected.auditAnnotations must be a mapping", path="expected.auditAnnotations"
        )
    rules = extra.get("kyverno", [])
    for rule in rules if isinstance(rules, list) else [None]:
        if not isinstance(rule, dict) or rule.get("result") not in KYVERNO_RESULTS or not rule.get("rule"):
            raise ServiceError(
                "invalid_exercise",
                f"{name}: expected.kyverno is a list of {{policy?, rule, result: pass|fail|skip|warn|error}}",
                path="expected.kyverno",
            )
    title = check.get("title", name)
    if not isinstance(title, str) or not title.strip():
        raise ServiceError("invalid_exercise", f"{name}: title must be a non-empty string", path="title")
    return {
        "name": name,
        "title": " ".join(title.split())[:300],
        "text": check["text"],
        "expected": {**(base or {}), **extra},
        "hidden": bool(check.get("hidden", False)),
        "showExpected": bool(check.get("show_expected", check.get("showExpected", False))),
    }


def student_check(check: dict) -> dict:
    """A check result as a student sees it: the title, their own outcome and message; the comparison with
    the expectation (it may quote the answer) only for checks whose author chose to show it."""
    seen = {key: check.get(key) for key in ("name", "title", "hidden", "verdict", "outcome", "message")}
    if check.get("showExpected"):
        seen["explanation"] = check.get("explanation", "")
    return seen


def student_progress(checks: list[dict], submitted: bool) -> dict:
    """The student's counts and checks: only the checks shown count, so a hidden check joins the count (and
    the checks) when the work is submitted; `hiddenPending` says how many still wait for it."""
    seen = [student_check(check) for check in checks if submitted or not check.get("hidden")]
    passed = sum(1 for check in seen if check.get("verdict") == "pass")
    return {
        "passed": passed,
        "total": len(seen),
        "hiddenPending": len(checks) - len(seen),
        "complete": bool(seen) and passed == len(seen),
        "checks": seen,
    }


def _pointer(document, pointer: str):
    """RFC 6901 lookup; _MISSING when the path is absent."""
    node = document
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _show(value) -> str:
    return "absent" if value is _MISSING else json.dumps(value, sort_keys=True)


def _mutated_problems(wanted: dict, result: dict) -> list[str]:
    patched = result.get("patchedObject") or (result.get("mutation") or {}).get("patchedObject")
    problems = []
    for pointer, value in wanted.items():
        actual = _pointer(patched, pointer) if patched is not None else _MISSING
        if actual != value or actual is _MISSING:
            problems.append(f"expected {pointer} = {_show(value)}, got {_show(actual)}")
    return problems


def _annotation_problems(wanted: dict, result: dict) -> list[str]:
    actual = result.get("auditAnnotations") or {}
    problems = []
    for key, value in wanted.items():
        if actual.get(key, _MISSING) != value:
            problems.append(f"expected audit annotation {key} = {_show(value)}, got {_show(actual.get(key, _MISSING))}")
    return problems


def _kyverno_problems(wanted: list, result: dict) -> list[str]:
    rules = [
        (entry.get("policy"), rule.get("rule"), rule.get("result"))
        for entry in result.get("kyverno") or []
        for rule in entry.get("rules") or []
    ]
    problems = []
    for rule in wanted:
        seen = [r for p, name, r in rules if name == rule["rule"] and rule.get("policy") in (None, p)]
        if rule["result"] not in seen:
            label = f"{rule['policy']}/{rule['rule']}" if rule.get("policy") else rule["rule"]
            problems.append(f"expected Kyverno rule {label} to {rule['result']}, got {', '.join(seen) or 'no result'}")
    return problems


def judge(expected: dict | None, result: dict) -> tuple[str, str]:
    """("pass"|"fail"|"none", message) for a check's expectation against the engine's result."""
    base, extra = split_expected(expected)
    outcome, message = verdict(base, result)
    problems = [message] if outcome == "fail" else []
    if "mutated" in extra:
        problems += _mutated_problems(extra["mutated"], result)
    if "auditAnnotations" in extra:
        problems += _annotation_problems(extra["auditAnnotations"], result)
    if "kyverno" in extra:
        problems += _kyverno_problems(extra["kyverno"], result)
    if problems:
        return "fail", "; ".join(problems)
    if outcome == "none" and not extra:
        return "none", ""
    return "pass", message or "as expected"
