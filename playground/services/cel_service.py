"""Plain CEL mode: one expression in the Kubernetes admission environment → value, CEL type and cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import evaluator.cel as cel
from playground.services.result_cache import LRUCache

_ENVS = LRUCache(maxsize=64)  # one CEL environment per set of variable names, the most recent 64


def evaluate_expression(expression: str, variables: Mapping[str, Any]) -> dict:
    """{"result", "type", "cost"}; raises the engine's CELError subclasses for the API to shape."""
    names = tuple(sorted(variables))
    env = _ENVS.get(names)
    if env is None:
        env = cel.admission_env(names)
        _ENVS.put(names, env)
    evaluation = cel.compile_program(expression, env=env).evaluate(variables)
    try:
        value = cel.to_json(evaluation.value)
    except RecursionError:
        raise cel.EvaluationError("result nested too deeply to convert to JSON", expression=expression) from None
    return {"result": value, "type": cel.type_name(evaluation.value), "cost": evaluation.cost}
