"""Go's `time.Parse` for the two layouts Kubernetes decodes its timestamps with: metav1.Time (`time.RFC3339`,
also what Kyverno's time functions read) and metav1.MicroTime (`2006-01-02T15:04:05.000000Z07:00`).

The API server refuses an object whose `metadata.creationTimestamp` (or any other Time field) does not parse,
with Go's own words: `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as
"2006"`. Go's parser is more lenient than RFC 3339 (a one-digit hour, a `,` before the fraction, a zone offset
of up to 24:60) and reports the first element it could not read, a value out of range, or text left over. It
reads bytes, not characters: the value is taken as UTF-8 and quoted as Go quotes it (`\\xc3\\xa9` for `é`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# The layout's elements in order: (the literal before it, its kind, its text in the layout).
_YEAR, _MONTH, _DAY, _HOUR, _MINUTE, _SECOND, _MICROS, _ZONE = range(8)
_NANOS = _MICROS  # what the fraction element (or a fraction after the seconds) was read as
_ELEMENTS = {
    RFC3339: [
        ("", _YEAR, "2006"),
        ("-", _MONTH, "01"),
        ("-", _DAY, "02"),
        ("T", _HOUR, "15"),
        (":", _MINUTE, "04"),
        (":", _SECOND, "05"),
        ("", _ZONE, "Z07:00"),
    ],
}
_ELEMENTS[RFC3339_MICRO] = [*_ELEMENTS[RFC3339][:6], ("", _MICROS, ".000000"), ("", _ZONE, "Z07:00")]

_DAYS_IN = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class GoTimeError(ValueError):
    """Go's time.ParseError, in its words."""


class _Bad(Exception):
    """The element cannot be read (Go's errBad): reported with the value as it was before the element."""


class _OutOfRange(Exception):
    """The element was read but its value is out of range: `month out of range`."""


def parse(layout: str, value: str) -> dt.datetime:
    """`time.Parse(layout, value)` (`layout`: RFC3339 or RFC3339_MICRO) as an aware datetime, to the
    microsecond; GoTimeError with Go's words when Go refuses it."""
    data = value.encode("utf-8", "surrogatepass")
    elements = _ELEMENTS[layout]
    found: dict[int, int] = {_NANOS: 0, _ZONE: 0}
    rest = data
    for index, (prefix, kind, text) in enumerate(elements):
        if prefix:
            if not rest.startswith(prefix.encode()):
                raise GoTimeError(_cannot_parse(layout, data, rest, prefix.encode()))
            rest = rest[len(prefix) :]
        held = rest
        following = elements[index + 1][1] if index + 1 < len(elements) else None
        try:
            rest = _READERS[kind](rest, following, found)
        except _OutOfRange as out_of_range:
            raise GoTimeError(f"parsing time {_quote(data)}: {out_of_range} out of range") from None
        except _Bad:
            raise GoTimeError(_cannot_parse(layout, data, held, text.encode())) from None
    if rest:
        raise GoTimeError(f"parsing time {_quote(data)}: extra text: {_quote(rest)}")
    year, month, day = found[_YEAR], found[_MONTH], found[_DAY]
    if day < 1 or day > _days_in(month, year):
        raise GoTimeError(f"parsing time {_quote(data)}: day out of range")
    return _datetime(found)


def parse_error(layout: str, value: str) -> str | None:
    """Go's error for `time.Parse(layout, value)`, or None when it parses."""
    try:
        parse(layout, value)
    except GoTimeError as error:
        return str(error)
    return None


def _datetime(found: dict[int, int]) -> dt.datetime:
    """The time read; Go's year 0 and its offsets of a day or more (up to 24:60), which Python's datetime
    cannot hold, are moved into its range (the instant kept where it can be)."""
    offset = dt.timedelta(seconds=found[_ZONE])
    zone = dt.timezone(offset) if abs(offset) < dt.timedelta(days=1) else dt.timezone.utc
    if found[_YEAR] < 1:  # Go's year 0 (a leap year): before anything Python can hold
        return dt.datetime.min.replace(tzinfo=zone)
    moment = dt.datetime(
        found[_YEAR], found[_MONTH], found[_DAY], found[_HOUR], found[_MINUTE], found[_SECOND], found[_NANOS] // 1000
    )
    if zone is dt.timezone.utc and offset:
        try:
            return (moment - offset).replace(tzinfo=zone)
        except OverflowError:  # past year 9999 once moved to UTC
            pass
    return moment.replace(tzinfo=zone)


def _cannot_parse(layout: str, data: bytes, value_element: bytes, layout_element: bytes) -> str:
    return (
        f"parsing time {_quote(data)} as {_quote(layout.encode())}: "
        f"cannot parse {_quote(value_element)} as {_quote(layout_element)}"
    )


def _quote(data: bytes) -> str:
    """Go's time.quote: printable ASCII as it is (`"` and `\\` escaped), every other byte as `\\xNN`."""
    out = ['"']
    for byte in data:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        elif byte in (0x22, 0x5C):
            out.append("\\" + chr(byte))
        else:
            out.append(chr(byte))
    out.append('"')
    return "".join(out)


def _is_digit(data: bytes, index: int) -> bool:
    return index < len(data) and 0x30 <= data[index] <= 0x39


def _number(data: bytes, fixed: bool) -> tuple[int, bytes]:
    """Go's getnum: one or two digits (exactly two when `fixed`)."""
    if not _is_digit(data, 0):
        raise _Bad
    if not _is_digit(data, 1):
        if fixed:
            raise _Bad
        return data[0] - 0x30, data[1:]
    return (data[0] - 0x30) * 10 + data[1] - 0x30, data[2:]


def _atoi(data: bytes) -> int:
    """Go's time.atoi: an optional sign, then digits only."""
    negative = bool(data) and data[:1] == b"-"
    digits = data[1:] if data[:1] in (b"-", b"+") else data
    if not digits.isdigit() and digits:
        raise _Bad
    number = int(digits) if digits else 0
    return -number if negative else number


Reader = Callable[[bytes, "int | None", dict[int, int]], bytes]


def _year(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
    if len(data) < 4 or not _is_digit(data, 0):
        raise _Bad
    found[_YEAR] = _atoi(data[:4])
    return data[4:]


def _ranged(kind: int, name: str, low: int, high: int, fixed: bool = True) -> Reader:
    """A one- or two-digit element, `name out of range` outside [low, high]."""

    def read(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
        number, rest = _number(data, fixed)
        if not low <= number <= high:
            raise _OutOfRange(name)
        found[kind] = number
        return rest

    return read


def _day(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
    found[_DAY], rest = _number(data, True)  # checked against the month once the whole value is read
    return rest


_read_second = _ranged(_SECOND, "second", 0, 59)


def _second(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
    """Seconds, and a fraction the layout does not have (`05` followed by `.123`), which Go takes anyway."""
    rest = _read_second(data, following, found)
    if following != _MICROS and len(rest) >= 2 and rest[:1] in (b".", b",") and _is_digit(rest, 1):
        end = 2
        while _is_digit(rest, end):
            end += 1
        found[_NANOS] = _nanoseconds(rest[1:end])
        rest = rest[end:]
    return rest


def _micros(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
    """Exactly six digits after a `.` or `,` (Go's atoi takes a sign there too; a negative one is out of range)."""
    if len(data) < 7 or data[:1] not in (b".", b","):
        raise _Bad
    micros = _atoi(data[1:7])
    if micros < 0:
        raise _OutOfRange("fractional second")
    found[_NANOS] = micros * 1000
    return data[7:]


def _nanoseconds(digits: bytes) -> int:
    """A fraction's digits as nanoseconds (Go reads the first nine)."""
    return int(digits[:9].ljust(9, b"0"))


def _zone(data: bytes, following: int | None, found: dict[int, int]) -> bytes:
    """`Z`, or a sign and hh:mm (up to 24:60: Go's range test is lenient on purpose)."""
    if data[:1] == b"Z":
        return data[1:]
    if len(data) < 6 or data[3:4] != b":":
        raise _Bad
    hours, _ = _number(data[1:3], True)
    try:
        minutes, bad = _number(data[4:6], True)[0], False
    except _Bad:
        minutes, bad = 0, True  # Go tests the ranges before it reports this
    if minutes > 60:
        raise _OutOfRange("time zone offset minute")
    if hours > 24:
        raise _OutOfRange("time zone offset hour")
    if bad or data[:1] not in (b"+", b"-"):
        raise _Bad
    found[_ZONE] = (hours * 3600 + minutes * 60) * (-1 if data[:1] == b"-" else 1)
    return data[6:]


_READERS: dict[int, Reader] = {
    _YEAR: _year,
    _MONTH: _ranged(_MONTH, "month", 1, 12),
    _DAY: _day,
    _HOUR: _ranged(_HOUR, "hour", 0, 23, fixed=False),
    _MINUTE: _ranged(_MINUTE, "minute", 0, 59),
    _SECOND: _second,
    _MICROS: _micros,
    _ZONE: _zone,
}


def _days_in(month: int, year: int) -> int:
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        return 29
    return _DAYS_IN[month - 1]
