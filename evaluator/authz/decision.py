"""Authorizer decisions in the shape `evaluator.cel.library.authz` expects (with a stand-in until it exists)."""
from __future__ import annotations

from dataclasses import dataclass


class Decision:
    ALLOW = "allow"
    DENY = "deny"
    NO_OPINION = "no-opinion"


@dataclass(frozen=True)
class _FallbackDecision:
    decision: str
    reason: str = ""
    error: str | None = None


def make_decision(decision: str, reason: str = "", error: str | None = None):
    """An AuthzDecision of the CEL library when it is importable, else an equivalent dataclass."""
    try:
        from evaluator.cel.library.authz import AuthzDecision  # type: ignore
    except ImportError:
        return _FallbackDecision(decision, reason, error)
    return AuthzDecision(decision=decision, reason=reason, error=error)
