"""Condition operators with Kyverno's coercions."""

from evaluator.policies.kyverno.operators import evaluate


def test_equals_coercions():
    assert evaluate("Equals", 3, "3") and not evaluate("Equals", "3", 3.0)
    assert evaluate("Equals", 3, 3.0)
    assert evaluate("Equals", "1h", "60m")
    assert evaluate("Equals", "1Gi", "1024Mi")
    assert evaluate("Equals", "nginx:1.2", "nginx:*")
    assert not evaluate("Equals", "nginx:*", "nginx:1.2")
    assert evaluate("NotEquals", "a", "b")
    assert evaluate("Equals", {"a": 1}, {"a": 1.0})


def test_numeric_and_duration_operators():
    assert evaluate("GreaterThan", 5, 3) and evaluate("GreaterThan", "5", 3)
    assert evaluate("LessThanOrEquals", "500m", "1")
    assert evaluate("GreaterThan", "1.10.0", "1.9.0")
    assert evaluate("DurationGreaterThan", "2h", "90m")
    assert evaluate("DurationLessThan", 30, "1m")


def test_set_operators():
    assert evaluate("In", "a", ["a", "b"]) and not evaluate("In", "c", ["a", "b"])
    assert evaluate("AnyIn", ["a", "z"], ["a", "b"]) and not evaluate("AllIn", ["a", "z"], ["a", "b"])
    assert (
        evaluate("AllIn", ["a", "ab"], ["a*"])
        and not evaluate("AllIn", ["a", "b"], ["a*"])
        and evaluate("AnyNotIn", ["a", "z"], ["a", "b"])
    )
    assert evaluate("AllNotIn", ["x", "y"], ["a", "b"]) and evaluate("NotIn", "c", ["a", "b"])
    assert evaluate("AnyIn", [5], "1-10") and not evaluate("AnyIn", [15], "1-10")
    assert evaluate("In", "a", '["a", "b"]')


def test_unknown_operator_raises_key_error():
    import pytest

    with pytest.raises(KeyError):
        evaluate("Bogus", 1, 1)


def test_ranges_in_any_and_all_operators():
    assert evaluate("AllIn", [5, 6], "1-10") and not evaluate("AllIn", [5, 16], "1-10")
    # AnyNotIn negates the range itself: some key outside it
    assert evaluate("AnyNotIn", [5, 15], "1-10") and not evaluate("AnyNotIn", [5, 6], "1-10")
    assert evaluate("AllNotIn", [15, 20], "1-10") and not evaluate("AllNotIn", [5, 15], "1-10")


def test_operator_names_are_case_insensitive():
    assert evaluate("anyin", ["a"], ["a"]) and evaluate("ANYIN", ["a"], ["a"])
    assert evaluate("durationGREATERthan", "2h", "1h")
