"""Preconditions kept per context data (conditions.remembered_outcome): the same conditions on the same data
are evaluated once and answer as a fresh evaluation; other data, a function call or a context entry still to
load are evaluated each time."""

from __future__ import annotations

import pytest

from evaluator.policies.kyverno import conditions
from evaluator.policies.kyverno.context import Context

NOT_DELETE = {"all": [{"key": "{{ request.operation || 'BACKGROUND' }}", "operator": "NotEquals", "value": "DELETE"}]}


@pytest.fixture
def evaluations(monkeypatch) -> list[object]:
    seen: list[object] = []
    evaluate = conditions.evaluate_condition
    monkeypatch.setattr(conditions, "evaluate_condition", lambda ctx, c: seen.append(c) or evaluate(ctx, c))
    return seen


def context(operation: str) -> Context:
    ctx = Context({"request": {"operation": operation, "object": {"metadata": {"name": "web"}}}})
    ctx.operation = operation
    return ctx


def test_the_same_conditions_on_the_same_data_are_evaluated_once(evaluations):
    ctx = context("CREATE")
    twin = {"all": [dict(NOT_DELETE["all"][0])]}  # another rule's equal precondition
    assert conditions.remembered_outcome(ctx, NOT_DELETE) == (True, "")
    assert conditions.remembered_outcome(ctx, twin) == (True, "")
    another = Context(ctx.data)  # another policy's context on the request's shared data
    another.operation = "CREATE"
    assert conditions.remembered_outcome(another, NOT_DELETE) == (True, "")
    assert len(evaluations) == 1
    deleting = context("DELETE")  # other data
    assert conditions.remembered_outcome(deleting, NOT_DELETE) == conditions.evaluate_conditions(deleting, NOT_DELETE)
    assert conditions.remembered_outcome(deleting, NOT_DELETE)[0] is False
    assert len(evaluations) == 3  # once remembered, once fresh to compare


def test_an_error_is_remembered_with_its_message(evaluations):
    broken = {"all": [{"key": "{{ request.object.spec..x }}", "operator": "Equals", "value": 1}]}
    ctx = context("CREATE")
    with pytest.raises(conditions.ConditionError) as fresh:
        conditions.evaluate_conditions(ctx, broken)
    for _ in range(2):
        with pytest.raises(conditions.ConditionError) as kept:
            conditions.remembered_outcome(ctx, broken)
        assert str(kept.value) == str(fresh.value)
    assert len(evaluations) == 2


def test_a_function_call_or_an_entry_to_load_is_evaluated_each_time(evaluations):
    ctx = context("CREATE")
    timed = {"all": [{"key": "{{ to_upper(request.operation) }}", "operator": "Equals", "value": "CREATE"}]}
    for _ in range(2):
        assert conditions.remembered_outcome(ctx, timed) == (True, "")
    assert len(evaluations) == 2
    loaded = {"all": [{"key": "{{ team }}", "operator": "Equals", "value": "a"}]}
    ctx.add_deferred("team", lambda: ctx.add("a", "team"))
    for _ in range(2):
        assert conditions.remembered_outcome(ctx, loaded) == (True, "")
    assert len(evaluations) == 4
