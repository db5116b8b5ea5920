"""cel-go corners that Kyverno's policies rely on (kyverno/policies expectations agree with them)."""

import pytest

from evaluator.cel import Env, EvaluationError, compile_program, evaluate
from evaluator.cel.types import INT, parse_type
from evaluator.cel.values import OPTIONAL_NONE, Optional


def test_optional_selection_on_null_is_empty_but_a_chained_select_is_a_missing_key():
    assert evaluate("object.metadata.?annotations.hasValue()", {"object": {"metadata": None}}) is False
    with pytest.raises(EvaluationError, match="no such key: invalid"):
        evaluate("{'k': dyn(null)}.?k.invalid.hasValue()", {})


def test_or_value_on_a_value_that_is_not_optional_returns_it():
    # cel-go before 0.28 (the version Kubernetes' CEL uses) plans orValue without checking the receiver
    assert evaluate("object.items.orValue([])", {"object": {"items": [1]}}) == [1]


def test_a_type_parameter_bound_to_dyn_stays_dyn():
    program = compile_program("object.?x.orValue({})", declared=("object",))
    assert str(program.type) == "dyn"
    assert evaluate("size(object.?x.orValue({}))", {"object": {"x": [1, 2]}}) == 2


@pytest.mark.parametrize(
    "expression",
    [
        "{'a': dyn(0)}.?a.?b",  # cel-go's TestOptionalValuesEval: `.?` on a present scalar finds nothing
        "{0: dyn(0)}[?0].?invalid",
        "{true: dyn(0)}[?true].?invalid",
        "{'a': dyn('s')}.?a[?0]",
    ],
)
def test_an_optional_step_onto_a_present_scalar_is_none(expression):
    assert _value(expression) == OPTIONAL_NONE


def _value(expression: str):
    return compile_program(expression).evaluate({}).value


def test_or_and_or_value_evaluate_their_argument_only_when_needed():
    """cel-go plans them as evalOptionalOr/evalOptionalOrValue: the argument of a present optional is never
    evaluated (so its error does not surface), and on optional-typed variables they chain."""
    assert _value("optional.of(2).orValue(1/0)") == 2
    assert _value("optional.of(2).or(optional.of(1/0))") == Optional(2)
    with pytest.raises(EvaluationError, match="division by zero"):
        _value("optional.none().orValue(1/0)")
    with pytest.raises(EvaluationError, match="division by zero"):
        _value("optional.of(1/0).or(optional.of(2))")
    with pytest.raises(EvaluationError, match="no such overload"):
        _value("dyn(1).or(optional.of(2))")
    env = Env({"x": parse_type("optional_type(int)"), "y": parse_type("optional_type(int)"), "z": INT})
    program = compile_program("x.or(y).orValue(z)", env=env)
    assert str(program.type) == "int"
    assert program.evaluate({"x": OPTIONAL_NONE, "y": OPTIONAL_NONE, "z": 42}).value == 42
    assert program.evaluate({"x": OPTIONAL_NONE, "y": Optional(7), "z": 42}).value == 7
    assert program.evaluate({"x": Optional(1), "y": Optional(7), "z": 42}).value == 1
