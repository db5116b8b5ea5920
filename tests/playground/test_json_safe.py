import math

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.json_safe import needs_json_safe
from playground.api.json_safe import json_safe


def test_non_finite_floats_become_proto3_json_strings():
    value = {"a": [math.inf, -math.inf, math.nan], "b": 1.5, "c": "x", "d": None, "e": (1, True)}
    assert json_safe(value) == {"a": ["Infinity", "-Infinity", "NaN"], "b": 1.5, "c": "x", "d": None, "e": [1, True]}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_needs_json_safe_says_exactly_when_json_safe_changes_something(value):
    """A value that needs nothing is used as it is (the live editor's results): it must then be exactly what
    json_safe would make of it, and anything json_safe would change must be told."""
    converted = json_safe(value)
    if needs_json_safe(value):
        assert _differs(converted, value)
    else:
        assert not _differs(converted, value)


def _differs(converted, value) -> bool:
    """Unequal, or equal only by Python's rules (a tuple equal to nothing JSON has; NaN unequal to itself)."""
    if type(converted) is not type(value):
        return True
    if isinstance(value, dict):
        return converted.keys() != value.keys() or any(_differs(converted[k], value[k]) for k in value)
    if isinstance(value, list):
        return len(converted) != len(value) or any(_differs(c, v) for c, v in zip(converted, value))
    return converted != value if not (isinstance(value, float) and math.isnan(value)) else True
