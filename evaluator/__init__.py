"""The pure admission engine: simulate admission requests against policies (never imports Django).

Public entry points: `simulate(documents, request)`, `simulate_many(documents, requests)`,
`load(documents) -> Simulation` (a document set loaded once, then `simulation.run(request)` per request;
neither raises) and `typecheck(policy, documents)`; the CEL layer is `evaluator.cel`. They import their
modules on first use, so `import evaluator.cel` stays light (the modules are `simulation` and `typechecking`,
whose names do not shadow these functions). The result is described in evaluator/SCHEMA.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaluator.simulation import Simulation

__all__ = ["simulate", "simulate_many", "load", "Simulation", "typecheck"]


def simulate(documents: Any, request: Any, **options: Any) -> dict:
    """One admission request through the admission chain; see evaluator/SCHEMA.md."""
    from evaluator.simulation import simulate as _simulate

    return _simulate(documents, request, **options)


def simulate_many(documents: Any, requests: Any, **options: Any) -> list[dict]:
    """Many requests against one document set, each policy compiled once."""
    from evaluator.simulation import simulate_many as _simulate_many

    return _simulate_many(documents, requests, **options)


def load(documents: Any, **options: Any) -> Simulation:
    """A document set loaded once, for many `run(request)` calls (options as `simulate`'s, without `now`).
    `.errors` are the documents' errors, each with `document`: the index of its document (None: the set)."""
    from evaluator.simulation import load as _load

    return _load(documents, **options)


def typecheck(policy: dict, documents: Any = (), **options: Any) -> dict:
    """The API server's `status.typeChecking` for a policy, plus our own diagnostics
    (`kubernetes_version="1.31"` checks with that release's CEL environment)."""
    from evaluator.typechecking import typecheck as _typecheck

    return _typecheck(policy, documents, **options)


def __getattr__(name: str) -> Any:
    if name == "Simulation":  # imported on first use, like the functions above
        from evaluator.simulation import Simulation

        return Simulation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
