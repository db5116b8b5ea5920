"""Go durations and Kubernetes quantities as Kyverno compares them (units.py): short strings are remembered,
long ones read each time, and both read the same."""

from __future__ import annotations

from fractions import Fraction

import pytest

from evaluator.policies.kyverno import units


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("1h30m", 5_400_000_000_000),
        ("-1.5s", -1_500_000_000),
        ("0", 0),
        ("300ms", 300_000_000),
        ("1d", None),
        ("", None),
    ],
)
def test_durations_read_as_go_reads_them(text, nanoseconds):
    assert units.parse_duration(text) == nanoseconds
    assert units.parse_duration(text) == nanoseconds  # remembered: the same answer


def test_a_long_string_is_read_each_time_and_not_remembered():
    units._duration.cache_clear()
    units._quantity.cache_clear()
    long_duration = "1s" * 40  # 80 characters: 40 seconds
    assert units.parse_duration(long_duration) == 40_000_000_000
    long_quantity = "0." + "5" * 70 + "Ki"
    assert units.parse_quantity(long_quantity) == Fraction("0." + "5" * 70) * 1024
    assert units._duration.cache_info().currsize == 0 and units._quantity.cache_info().currsize == 0
    assert units.parse_quantity("500m") == Fraction(1, 2) and units._quantity.cache_info().currsize == 1
    assert units.parse_duration(["1s"]) is None and units.parse_quantity({"a": 1}) is None  # not strings
