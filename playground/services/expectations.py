"""Expected outcomes of sample requests and their verdicts, in the manner of `kyverno test`.

expected: null | {"allowed": bool?, "outcome": "allowed"|"denied"|"warned"?, "messageContains": str?}
"""

from __future__ import annotations

from playground.services.errors import ServiceError

OUTCOMES = ("allowed", "denied", "warned")
_KEYS = {"allowed", "outcome", "messageContains"}


def clean_expected(expected, name: str | None = None):
    """Validate an expected outcome as sent by a client; {} means none."""
    if expected is None:
        return None
    if not isinstance(expected, dict):
        raise ServiceError("invalid_expected", "expected must be an object or null", document=name, path="expected")
    unknown = sorted(set(expected) - _KEYS)
    if unknown:
        raise ServiceError("invalid_expected", f"unknown expected field(s): {', '.join(unknown)}", document=name,
                           path=f"expected.{unknown[0]}")
    if "allowed" in expected and not isinstance(expected["allowed"], bool):
        raise ServiceError("invalid_expected", "expected.allowed must be true or false", document=name,
                           path="expected.allowed")
    if "outcome" in expected and expected["outcome"] not in OUTCOMES:
        raise ServiceError("invalid_expected", f"expected.outcome must be one of {', '.join(OUTCOMES)}",
                           document=name, path="expected.outcome")
    if "messageContains" in expected and not isinstance(expected["messageContains"], str):
        raise ServiceError("invalid_expected", "expected.messageContains must be a string", document=name,
                           path="expected.messageContains")
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


def verdict(expected, result: dict) -> tuple[str, str]:
    """("pass"|"fail"|"none", message) comparing the expected outcome with the engine's result."""
    if not expected:
        return "none", ""
    problems = []
    outcome = actual_outcome(result)
    if "allowed" in expected and bool(result.get("allowed")) is not expected["allowed"]:
        problems.append(f"expected allowed={str(expected['allowed']).lower()}, "
                        f"got allowed={str(bool(result.get('allowed'))).lower()}")
    if "outcome" in expected and outcome != expected["outcome"]:
        problems.append(f"expected outcome {expected['outcome']}, got {outcome}")
    if "messageContains" in expected and expected["messageContains"] not in result_message(result):
        problems.append(f"expected a message containing {expected['messageContains']!r}, got "
                        f"{result_message(result) or 'no message'!r}")
    if problems:
        return "fail", "; ".join(problems)
    return "pass", f"{outcome} as expected"
