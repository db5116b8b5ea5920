"""Plain CEL mode: one expression in the Kubernetes admission environment → value, CEL type and cost.
Shared by the web app's /api/v1/cel and the MCP server's evaluate_cel tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import evaluator.cel as cel


def evaluate_expression(expression: str, variables: Mapping[str, Any]) -> dict:
    """{"result", "type", "cost"}; raises the engine's CELError subclasses for the caller to shape."""
    outcome = cel.evaluate_json(expression, variables)
    return {"result": outcome.value, "type": outcome.type, "cost": outcome.cost}
