"""cel-go corners that Kyverno's policies rely on (kyverno/policies expectations agree with them)."""

import pytest

from evaluator.cel import EvaluationError, compile_program, evaluate


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
