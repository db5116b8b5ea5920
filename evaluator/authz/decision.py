"""Authorizer decisions, in the CEL authorizer library's own type so `authorizer...check()` can return them."""

from __future__ import annotations

from evaluator.cel.library.authz import AuthzDecision


class Decision:
    ALLOW = "allow"
    DENY = "deny"
    NO_OPINION = "no-opinion"


def make_decision(decision: str, reason: str = "", error: str | None = None) -> AuthzDecision:
    return AuthzDecision(decision=decision, reason=reason, error=error)
