"""What the CEL library tests share: evaluation in Kubernetes' admission environment and the library cases.

The full run of `k8s-cel-library/cases.jsonl` (with skips and exact-message options) is
tests/conformance/test_k8s_cel_library.py; each library's test module re-runs its own slice for a quick loop.
"""

from __future__ import annotations

import pytest

from evaluator.cel import CELError, compile_program
from evaluator.cel.env import admission_env
from tests.shared_data import conformance_file, read_jsonl

__all__ = ["run", "error_of", "cost_of", "k8s_library_cases", "check_k8s_library_case"]


def run(expr: str, **bindings):
    """The value of `expr` with `bindings` declared as admission variables."""
    return compile_program(expr, env=admission_env(tuple(bindings))).evaluate(bindings).value


def error_of(expr: str, **bindings) -> str:
    """The message of the compile or evaluation error `expr` must raise."""
    with pytest.raises(CELError) as info:
        run(expr, **bindings)
    return str(info.value)


def k8s_library_cases(*libraries: str) -> list[dict]:
    """The cases of `k8s-cel-library/cases.jsonl` whose `library` is one of `libraries`."""
    cases = read_jsonl(conformance_file("k8s-cel-library", "cases.jsonl"))
    return [c for c in cases if c["library"] in libraries]


def check_k8s_library_case(case: dict) -> None:
    """The case's value, or an error that contains its expected fragment."""
    expect = case["expect"]
    if "value" in expect:
        value, want = run(case["expr"], **case["bindings"]), expect["value"]
        # types too: 1 == 1.0 == True in Python, not in CEL
        assert value == want and type(value) is type(want), f"got {value!r}, want {want!r}"
    else:
        assert (expect.get("error_contains") or expect["compile_error_contains"]) in error_of(
            case["expr"], **case["bindings"]
        )


def cost_of(expr: str, **bindings) -> int:
    """The runtime cost of evaluating `expr` with `bindings` (each variable read costs one unit)."""
    return compile_program(expr, env=admission_env(tuple(bindings))).evaluate(bindings).cost
