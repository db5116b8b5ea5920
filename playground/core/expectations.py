"""Expected outcomes of sample requests: the engine's verdict logic (evaluator/expectations.py), with the
web app's error shape for invalid input.

expected: null | {"allowed": bool?, "outcome": "allowed"|"denied"|"warned"?, "messageContains": str?}
"""

from __future__ import annotations

from evaluator import expectations
from evaluator.expectations import OUTCOMES, actual_outcome, result_message, verdict  # noqa: F401 (re-exported)
from playground.core.errors import ServiceError


def clean_expected(expected, name: str | None = None):
    """Validate an expected outcome as sent by a client; {} means none."""
    try:
        return expectations.clean_expected(expected)
    except expectations.ExpectationError as exc:
        raise ServiceError("invalid_expected", str(exc), document=name, path=exc.path) from None
