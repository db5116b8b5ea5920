"""Authorization for CEL's `authorizer`: RBAC over the simulation's RBAC documents, cached per request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.authz.decision import Decision, make_decision
from evaluator.authz.rbac import Attributes, RBACAuthorizer

__all__ = ["Decision", "RBACAuthorizer", "Attributes", "CachingAuthorizer", "make_decision"]


class CachingAuthorizer:
    """Remembers each decision for the lifetime of one admission request, as the API server's
    caching authorizer does, so repeated checks of the same attributes cost one lookup."""

    def __init__(self, check: Callable[[Any], Any]):
        self._check = check
        self._cache: dict[Attributes, Any] = {}
        self.calls: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        key = Attributes.from_request(request)
        decision = self._cache.get(key)
        if decision is None:
            decision = self._check(request)
            self._cache[key] = decision
            self.calls.append(
                {
                    "attributes": key.__dict__ | {"groups": list(key.groups)},
                    "decision": getattr(decision, "decision", None),
                    "reason": getattr(decision, "reason", ""),
                }
            )
        return decision
