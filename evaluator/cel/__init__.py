"""Kubernetes CEL on cel-python's parser: compile → program → evaluate.

`evaluate(expression, variables)` is the one-call form (`evaluate_json` also gives the CEL type and cost);
`compile_program` gives a cached `Program` to evaluate many times with a shared `CostBudget`.
See evaluator/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Mapping

from evaluator.cel.env import ADMISSION_VARIABLES, Env, admission_env
from evaluator.cel.errors import CELError, CompileError, CostLimitError, EvaluationError
from evaluator.cel.program import CostBudget, Evaluation, Program, compile_program
from evaluator.cel.tojson import to_json
from evaluator.cel.values import type_name
from evaluator.cel.versions import active_version

__all__ = [
    "evaluate",
    "evaluate_json",
    "JSONEvaluation",
    "compile_program",
    "Program",
    "Evaluation",
    "CostBudget",
    "CELError",
    "CompileError",
    "EvaluationError",
    "CostLimitError",
    "to_json",
    "type_name",
    "Env",
    "admission_env",
    "ADMISSION_VARIABLES",
]


import_module(f"{__name__}.library")  # the function libraries, each imported when a name of its is looked up

_ENVS: dict[tuple, Env] = {}
_MAX_ENVS = 256


@dataclass(frozen=True)
class JSONEvaluation:
    """One evaluation as plain data: the value as JSON (`to_json`), its CEL type name and its cost."""

    value: Any
    type: str
    cost: int


def _evaluate(expression: str, variables: Mapping[str, Any]) -> tuple[Evaluation, Any]:
    names = tuple(sorted(variables))
    key = (names, active_version())  # the environment of the Kubernetes release being simulated
    env = _ENVS.get(key)
    if env is None:
        if len(_ENVS) >= _MAX_ENVS:  # variable names come from users: keep the cache bounded
            _ENVS.clear()
        env = _ENVS.setdefault(key, admission_env(names))
    evaluation = compile_program(expression, env=env).evaluate(variables)
    try:
        return evaluation, to_json(evaluation.value)
    except RecursionError:
        raise EvaluationError("result nested too deeply to convert to JSON", expression=expression) from None


def evaluate_json(expression: str, variables: Mapping[str, Any] | None = None) -> JSONEvaluation:
    """Evaluate in the Kubernetes admission environment with `variables` declared; raises `CELError`s."""
    evaluation, value = _evaluate(expression, variables or {})
    return JSONEvaluation(value, type_name(evaluation.value), evaluation.cost)


def evaluate(expression: str, variables: Mapping[str, Any] | None = None) -> Any:
    """Evaluate in the Kubernetes admission environment; the result as plain JSON-like data."""
    return _evaluate(expression, variables or {})[1]
