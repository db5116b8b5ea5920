"""Numbers of more digits than Python reads from text (4,300): each function answers as Kubernetes does where it
can (out of range, an invalid duration), and otherwise says plainly what happened, never Python's advice to call
sys.set_int_max_str_digits."""

from __future__ import annotations

import pytest

from tests.evaluator.cel.library.helpers import error_of, run

LONG = "1" + "0" * 5000


@pytest.mark.parametrize("text", [LONG + "s", "-" + LONG + "h", "10000000000000000000s"])
def test_a_duration_past_int64_is_invalid_as_go_says(text):
    assert error_of("duration(s)", s=text) == f'time: invalid duration "{text}"'


def test_leading_zeros_and_long_fractions_of_a_duration_are_read():
    assert run("duration(s)", s="0" * 5000 + "1s") == run("duration('1s')")
    assert run("duration(s)", s="1." + "5" * 5000 + "s") == run("duration('1.555555555s')")


def test_a_semver_part_past_uint64_is_out_of_range():
    assert error_of("semver(s)", s=f"1.0.{LONG}") == f'strconv.ParseUint: parsing "{LONG}": value out of range'
    assert run("isSemver(s)", s=f"1.{LONG}.0") is False


@pytest.mark.parametrize("expression", ["quantity(s)", "isQuantity(s)"])
def test_a_quantity_too_long_to_read_says_so(expression):
    message = error_of(expression, s=LONG)
    assert message == "a number of more than 4,300 digits: too long for the simulator to read"
