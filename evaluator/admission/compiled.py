"""What every compiled admission policy (validating, mutating) holds for the core, declared once: its name and
failurePolicy, its params, and the matchConditions with the variables they read (`evaluation.match_conditions`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.admission import expressions as ex


@dataclass(frozen=True)
class CompiledConditions:
    name: str
    failure_policy: str
    has_params: bool
    param_kind: Mapping[str, Any] | None
    variables: tuple[tuple[str, ex.CompiledExpression], ...]
    match_conditions: tuple[tuple[str, ex.CompiledExpression], ...]
