"""Expected outcomes of sample requests and their verdicts, in the manner of `kyverno test`.

expected: null | {"allowed": bool?, "outcome": "allowed"|"denied"|"warned"?, "messageContains": str?}

Django-free so the web app (live verdicts), `evaluator test` and the import/export formats share one copy.
"""

from __future__ import annotations

from typing import Any

OUTCOMES = ("allowed", "denied", "warned")
KEYS = ("allowed", "outcome", "messageContains")


class ExpectationError(ValueError):
    """An expected outcome that is not one; `path` names the offending field."""

    def __init__(self, message: str, path: str = "expected") -> None:
        super().__init__(message)
        self.path = path


def clean_expected(expected: Any) -> dict | None:
    """The expected outcome validated; None for none ({} means none). Raises ExpectationError."""
    if expected is None:
        return None
    if not isinstance(expected, dict):
        raise ExpectationError("expected must be an object or null")
    unknown = sorted(set(expected) - set(KEYS))
    if unknown:
        raise ExpectationError(f"unknown expected field(s): {', '.join(unknown)}", f"expected.{unknown[0]}")
    if "allowed" in expected and not isinstance(expected["allowed"], bool):
        raise ExpectationError("expected.allowed must be true or false", "expected.allowed")
    if "outcome" in expected and expected["outcome"] not in OUTCOMES:
        raise ExpectationError(f"expected.outcome must be one of {', '.join(OUTCOMES)}", "expected.outcome")
    if "messageContains" in expected and not isinstance(expected["messageContains"], str):
        raise ExpectationError("expected.messageContains must be a string", "expected.messageContains")
    return dict(expected) or None


def actual_outcome(result: dict) -> str:
    if not result.get("allowed"):
        return "denied"
    return "warned" if result.get("warnings") else "allowed"


def result_message(result: dict) -> str:
    """The text a user saw: the denial message and every warning."""
    parts = [((result.get("status") or {}).get("message") or "")]
    parts.extend(result.get("warnings") or [])
    return "\n".join(part for part in parts if part)


def verdict(expected: dict | None, result: dict) -> tuple[str, str]:
    """("pass"|"fail"|"none", message) comparing the expected outcome with the engine's result."""
    if not expected:
        return "none", ""
    problems = []
    outcome = actual_outcome(result)
    if "allowed" in expected and bool(result.get("allowed")) is not expected["allowed"]:
        problems.append(
            f"expected allowed={str(expected['allowed']).lower()}, "
            f"got allowed={str(bool(result.get('allowed'))).lower()}"
        )
    if "outcome" in expected and outcome != expected["outcome"]:
        problems.append(f"expected outcome {expected['outcome']}, got {outcome}")
    if "messageContains" in expected and expected["messageContains"] not in result_message(result):
        problems.append(
            f"expected a message containing {expected['messageContains']!r}, got "
            f"{result_message(result) or 'no message'!r}"
        )
    if problems:
        return "fail", "; ".join(problems)
    return "pass", f"{outcome} as expected"
