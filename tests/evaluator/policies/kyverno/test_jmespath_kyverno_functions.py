"""Kyverno's JMESPath functions against the values Kyverno's own tests state
(kyverno/kyverno pkg/engine/jmespath/time_test.go and functions_test.go)."""

from __future__ import annotations

import pytest

from evaluator.policies.kyverno.jmes import JMESPathError, search
from evaluator.policies.kyverno.jmes_functions import FunctionError


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Test_TimeSince
        ("time_since('', '2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", "180h10m0s"),
        (
            "time_since('Mon Jan _2 15:04:05 MST 2006', 'Mon Jan 02 15:04:05 MST 2021', 'Mon Jan 10 03:14:16 MST 2021')",
            "180h10m11s",
        ),
        # Test_TimeToCron
        ("time_to_cron('2023-02-02T15:04:05Z')", "4 15 2 2 4"),
        ("time_to_cron(time_utc('2023-02-02T15:04:05-07:00'))", "4 22 2 2 4"),
        # Test_TimeAdd
        ("time_add('2021-01-02T15:04:05-07:00', '3h')", "2021-01-02T18:04:05-07:00"),
        (
            "time_add(time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021'), '5h30m40s')",
            "2021-01-02T20:34:45-07:00",
        ),
        # Test_TimeParse
        ("time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')", "2021-01-02T15:04:05-07:00"),
        ("time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021')", "2021-01-02T15:04:05-07:00"),
        ("time_parse('1702691171', '1702691171')", "2023-12-16T01:46:11Z"),
        # Test_TimeUtc
        ("time_utc('2023-02-02T15:04:05Z')", "2023-02-02T15:04:05Z"),
        ("time_utc('2023-02-02T15:04:05-07:00')", "2023-02-02T22:04:05Z"),
        # Test_TimeDiff
        ("time_diff('2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", "180h10m0s"),
    ],
)
def test_time_functions(expression, expected):
    assert search(expression, {}) == expected


@pytest.mark.parametrize(
    ("function", "arguments", "expected"),
    [
        # Test_jpTimeBefore / Test_jpTimeAfter
        ("time_before", ["2021-01-02T15:04:05-07:00", "2021-01-02T16:04:05-07:00"], True),
        ("time_before", ["2021-01-02T15:04:05-07:00", "2021-01-02T15:04:05-07:00"], False),
        ("time_before", ["2021-01-02T16:04:05-07:00", "2021-01-02T15:04:05-07:00"], False),
        ("time_after", ["2021-01-02T15:04:05-07:00", "2021-01-02T16:04:05-07:00"], False),
        ("time_after", ["2021-01-02T15:04:05-07:00", "2021-01-02T15:04:05-07:00"], False),
        ("time_after", ["2021-01-02T16:04:05-07:00", "2021-01-02T15:04:05-07:00"], True),
        # Test_jpTimeBetween
        ("time_between", ["2021-01-02T17:04:05-07:00", "2021-01-02T15:04:05-07:00", "2021-01-02T18:04:05-07:00"], True),
        (
            "time_between",
            ["2021-01-02T15:04:05-07:00", "2021-01-02T15:04:05-07:00", "2021-01-02T18:04:05-07:00"],
            False,
        ),
        (
            "time_between",
            ["2021-01-02T18:04:05-07:00", "2021-01-02T15:04:05-07:00", "2021-01-02T18:04:05-07:00"],
            False,
        ),
    ],
)
def test_time_comparisons(function, arguments, expected):
    expression = f"{function}({', '.join(repr(a) for a in arguments)})"
    assert search(expression, {}) is expected


@pytest.mark.parametrize(
    "expression",
    [
        "time_before(`1`, '2021-01-02T15:04:05-07:00')",
        "time_after('2021-01-02T15:04:05-07:00', `1`)",
        "time_between('2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00', `1`)",
        "time_add(`123`, '1h')",
        "time_utc('')",
    ],
)
def test_time_functions_refuse_bad_arguments(expression):
    with pytest.raises((JMESPathError, FunctionError)):
        search(expression, {})


def test_time_add_error_names_time_add():
    """Test_jpTimeAdd_ErrorAttributesToTimeAdd: the error names time_add, not another function."""
    with pytest.raises((JMESPathError, FunctionError)) as info:
        search("time_add(`123`, '1h')", {})
    assert "time_add" in str(info.value) and "time_to_cron" not in str(info.value)


def test_times_are_read_as_gos_time_parse_reads_them():
    """time.Parse(time.RFC3339, ...): a date alone is refused in Go's words; a one-digit hour is taken."""
    with pytest.raises((JMESPathError, FunctionError)) as info:
        search("time_after('2021-01-02', '2021-01-01T00:00:00Z')", {})
    assert str(info.value).endswith('parsing time "2021-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"')
    assert search("time_after('2021-01-02T3:04:05Z', '2021-01-02T03:00:00Z')", {}) is True


def test_time_since_checks_its_end_is_a_string():
    with pytest.raises(FunctionError, match="time_since': argument #3 is not of type String"):
        search("time_since('', '2021-01-02T15:04:05Z', `1`)", {})
