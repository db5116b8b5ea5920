import math

from playground.api.json_safe import json_safe


def test_non_finite_floats_become_proto3_json_strings():
    value = {"a": [math.inf, -math.inf, math.nan], "b": 1.5, "c": "x", "d": None, "e": (1, True)}
    assert json_safe(value) == {"a": ["Infinity", "-Infinity", "NaN"], "b": 1.5, "c": "x", "d": None, "e": [1, True]}
