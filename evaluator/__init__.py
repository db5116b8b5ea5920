"""The pure admission engine: simulate admission requests against policies (never imports Django).

Public entry points: `simulate(documents, request)`, `simulate_many(documents, requests)` and
`typecheck(policy, documents)`; the CEL layer is `evaluator.cel`. They import their modules on first use, so
`import evaluator.cel` stays light (the modules are `simulation` and `typechecking`, whose names do not
shadow these functions).
"""
from __future__ import annotations

from typing import Any

__all__ = ["simulate", "simulate_many", "typecheck"]


def simulate(documents: Any, request: Any, **options: Any) -> dict:
    """One admission request through the admission chain; see evaluator/SCHEMA.md."""
    from evaluator.simulation import simulate as _simulate

    return _simulate(documents, request, **options)


def simulate_many(documents: Any, requests: Any, **options: Any) -> list[dict]:
    """Many requests against one document set, each policy compiled once."""
    from evaluator.simulation import simulate_many as _simulate_many

    return _simulate_many(documents, requests, **options)


def typecheck(policy: dict, documents: Any = ()) -> dict:
    """The API server's `status.typeChecking` for a policy, plus our own diagnostics."""
    from evaluator.typechecking import typecheck as _typecheck

    return _typecheck(policy, documents)
