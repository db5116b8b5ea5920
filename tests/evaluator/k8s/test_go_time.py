"""Go's time.Parse in the two layouts Kubernetes decodes timestamps with: what it takes (more than RFC 3339)
and its error for what it does not, word for word (time.ParseError)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.k8s.go_time import RFC3339, RFC3339_MICRO, GoTimeError, parse, parse_error

LAYOUT = '"2006-01-02T15:04:05Z07:00"'


@pytest.mark.parametrize(
    "value",
    [
        "2024-01-02T03:04:05Z",
        "2024-02-29T00:00:00Z",  # a leap year
        "2024-01-02T03:04:05.123456789-07:00",
        "2024-01-02T3:04:05Z",  # Go reads the hour with one digit or two
        "2024-01-02T03:04:05,5+24:60",  # a comma before the fraction; Go's offset range is lenient
    ],
)
def test_what_go_parses(value):
    assert parse_error(RFC3339, value) is None


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("yesterday", f'parsing time "yesterday" as {LAYOUT}: cannot parse "yesterday" as "2006"'),
        ("", f'parsing time "" as {LAYOUT}: cannot parse "" as "2006"'),
        ("2024-01-01", f'parsing time "2024-01-01" as {LAYOUT}: cannot parse "" as "T"'),
        ("2024-01-02t03:04:05Z", f'parsing time "2024-01-02t03:04:05Z" as {LAYOUT}: cannot parse "t03:04:05Z" as "T"'),
        ("2024-01-02T03:04:05", f'parsing time "2024-01-02T03:04:05" as {LAYOUT}: cannot parse "" as "Z07:00"'),
        (
            "2024-1-02T03:04:05Z",
            f'parsing time "2024-1-02T03:04:05Z" as {LAYOUT}: cannot parse "1-02T03:04:05Z" as "01"',
        ),
        ("2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        ("2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
        ("2024-01-02T24:00:00Z", 'parsing time "2024-01-02T24:00:00Z": hour out of range'),
        ("2024-01-02T23:59:60Z", 'parsing time "2024-01-02T23:59:60Z": second out of range'),
        ("2024-01-02T03:04:05Z!", 'parsing time "2024-01-02T03:04:05Z!": extra text: "!"'),
        # the ranges are tested before a bad element of the offset is reported
        ("2024-01-02T03:04:05+25:xx", 'parsing time "2024-01-02T03:04:05+25:xx": time zone offset hour out of range'),
        # bytes, as Go reads them: `é` is two, so the colon is not where the offset needs it
        (
            "2024-01-02T03:04:05é25:00",
            f'parsing time "2024-01-02T03:04:05\\xc3\\xa925:00" as {LAYOUT}: cannot parse "\\xc3\\xa925:00" as "Z07:00"',
        ),
        ('a"b', f'parsing time "a\\"b" as {LAYOUT}: cannot parse "a\\"b" as "2006"'),
    ],
)
def test_gos_words_for_what_it_does_not_parse(value, error):
    assert parse_error(RFC3339, value) == error


def test_micro_time_needs_six_fraction_digits():
    assert parse_error(RFC3339_MICRO, "2024-01-02T03:04:05.123456Z") is None
    assert parse_error(RFC3339_MICRO, "2024-01-02T03:04:05Z") == (
        'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    )
    assert parse_error(RFC3339_MICRO, "2024-01-02T03:04:05.-12345Z") == (
        'parsing time "2024-01-02T03:04:05.-12345Z": fractional second out of range'
    )


@given(st.text(alphabet="0123456789-:TZ+.,tzé\ud800 ", max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_text_parses_or_gets_gos_error(value):
    """Hostile text never crashes the reader: a time, or a ParseError's words naming the value."""
    for layout in (RFC3339, RFC3339_MICRO):
        try:
            parsed = parse(layout, value)
        except GoTimeError as error:
            assert str(error).startswith("parsing time ")
        else:
            assert parsed.tzinfo is not None


ANSIC = "Mon Jan _2 15:04:05 2006"
STAMP_NANO = "Jan _2 15:04:05.000000000"


# Go's own expectations (time/format_test.go, parseErrorTests: the error contains the text).
@pytest.mark.parametrize(
    ("layout", "value", "error"),
    [
        (ANSIC, "Feb  4 21:00:60 2010", 'cannot parse "Feb  4 21:00:60 2010" as "Mon"'),
        (ANSIC, "Thu Feb  4 21:00:57 @2010", 'cannot parse "@2010" as "2006"'),
        (ANSIC, "Thu Feb  4 21:00:60 2010", "second out of range"),
        (ANSIC, "Thu Feb  4 21:61:57 2010", "minute out of range"),
        (ANSIC, "Thu Feb  4 24:00:60 2010", "hour out of range"),
        ("Mon Jan _2 15:04:05.000 2006", "Thu Feb  4 23:00:59x01 2010", 'cannot parse "x01 2010" as ".000"'),
        ("Mon Jan _2 15:04:05.000 2006", "Thu Feb  4 23:00:59.-123 2010", "fractional second out of range"),
        (STAMP_NANO, "Dec  7 11:22:01.000000", 'cannot parse ".000000" as ".000000000"'),
        (STAMP_NANO, "Dec  7 11:22:01.0000000000", 'extra text: "0"'),
        (RFC3339, "2006-01-02T15:04:05Z07:00", 'parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"'),
        (RFC3339, "2006-01-02T15:04_abc", 'cannot parse "_abc" as ":"'),
        (RFC3339, "2010-02-04T21:00:67.012345678-08:00", "second out of range"),
        (RFC3339, "0000-01-01T00:00:.0+00:00", 'cannot parse ".0+00:00" as "05"'),
        ("_2 January 06 15:04 MST", "4 --- 00 00:00 GMT", 'cannot parse "--- 00 00:00 GMT" as "January"'),
        ("Jan _2 002 2006", "Feb  4 034 2006", "day-of-year does not match day"),
        ("Jan _2 002 2006", "Feb  4 004 2006", "day-of-year does not match month"),
        ('"2006-01-02T15:04:05Z07:00"', "0", 'as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse "0" as "\\""'),
        (RFC3339, "0000-01-01T00:00:00+00:+0", 'cannot parse "+00:+0" as "Z07:00"'),
        ("06-01-02", "a2-10-25", 'cannot parse "a2-10-25" as "06"'),
        ("03:04PM", "12:03pM", 'cannot parse "pM" as "PM"'),
    ],
)
def test_go_layouts_and_their_errors(layout, value, error):
    assert error in parse_error(layout, value)


@pytest.mark.parametrize(
    ("layout", "value", "expected"),
    [
        # a zone Go does not know keeps the clock as read, with a zero offset
        ("Jan 2, 2006 at 3:04pm (MST)", "Feb 3, 2013 at 7:54pm (PST)", "2013-02-03T19:54:00+00:00"),
        ("Mon Jan 02 15:04:05 -0700 2006", "Sat Jan 02 15:04:05 -0700 2021", "2021-01-02T15:04:05-07:00"),
        ("2006-01-02 15:04:05 MST", "2021-01-02 15:04:05 GMT+3", "2021-01-02T18:04:05+03:00"),
        ("2006 002", "2024 060", "2024-02-29T00:00:00+00:00"),  # the 60th day of a leap year
    ],
)
def test_go_layouts_read_the_time(layout, value, expected):
    assert parse(layout, value).isoformat() == expected
