"""Kubernetes CEL on cel-python's parser: compile → program → evaluate.

`evaluate(expression, variables)` is the one-call form; `compile_program` gives a cached `Program`
to evaluate many times with a shared `CostBudget`. See evaluator/README.md.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any, Mapping

from evaluator.cel.env import ADMISSION_VARIABLES, Env, admission_env
from evaluator.cel.errors import CELError, CompileError, CostLimitError, EvaluationError
from evaluator.cel.program import CostBudget, Evaluation, Program, compile_program
from evaluator.cel.tojson import to_json
from evaluator.cel.values import type_name
from evaluator.cel.versions import active_version

__all__ = [
    "evaluate", "compile_program", "Program", "Evaluation", "CostBudget", "CELError", "CompileError",
    "EvaluationError", "CostLimitError", "to_json", "type_name", "Env", "admission_env", "ADMISSION_VARIABLES",
]


import_module(f"{__name__}.library")  # registers every function library before any program compiles

_ENVS: dict[tuple, Env] = {}


def evaluate(expression: str, variables: Mapping[str, Any] | None = None) -> Any:
    """Evaluate in the Kubernetes admission environment; the result as plain JSON-like data."""
    variables = variables or {}
    names = tuple(sorted(variables))
    key = (names, active_version())
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS.setdefault(key, admission_env(names))
    program = compile_program(expression, env=env)
    value = program.evaluate(variables).value
    try:
        return to_json(value)
    except RecursionError:
        raise EvaluationError("result nested too deeply to convert to JSON", expression=expression) from None
