"""Plain CEL mode: one expression in the Kubernetes admission environment → value, CEL type and cost.
Shared by the web app's /api/v1/cel and the MCP server's evaluate_cel tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import evaluator.cel as cel

_ENVS: dict[tuple[str, ...], Any] = {}


def evaluate_expression(expression: str, variables: Mapping[str, Any]) -> dict:
    """{"result", "type", "cost"}; raises the engine's CELError subclasses for the caller to shape."""
    names = tuple(sorted(variables))
    env = _ENVS.get(names)
    if env is None:
        env = _ENVS.setdefault(names, cel.admission_env(names))
    evaluation = cel.compile_program(expression, env=env).evaluate(variables)
    try:
        value = cel.to_json(evaluation.value)
    except RecursionError:
        raise cel.EvaluationError("result nested too deeply to convert to JSON", expression=expression) from None
    return {"result": value, "type": cel.type_name(evaluation.value), "cost": evaluation.cost}
