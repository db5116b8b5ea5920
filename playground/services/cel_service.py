"""Plain CEL mode: one expression in the Kubernetes admission environment → value, CEL type and cost.
The engine's evaluator/expression.py (one copy, shared with the MCP server)."""

from __future__ import annotations

from evaluator.expression import evaluate_expression  # noqa: F401 (re-exported)
