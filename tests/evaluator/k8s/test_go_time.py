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
