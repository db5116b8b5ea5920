"""Go's `time.Parse` (time/format.go's parse, read for its semantics): what Kubernetes decodes its timestamps
with (metav1.Time, `time.RFC3339`; metav1.MicroTime, `2006-01-02T15:04:05.000000Z07:00`) and what Kyverno's
time functions read.

The API server refuses an object whose `metadata.creationTimestamp` (or any other Time field) does not parse,
with Go's own words: `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as
"2006"`. Go's parser is more lenient than RFC 3339 (a one-digit hour, a `,` before the fraction, a zone offset
of up to 24:60) and reports the first element it could not read, a value out of range, or text left over. It
reads bytes, not characters: the value is taken as UTF-8 and quoted as Go quotes it (`\\xc3\\xa9` for `é`).
A layout is read as Go reads it (`nextStdChunk`): `Jan`, `Monday`, `_2`, `002`, `PM`, `MST`, `-07:00`, `.000`...
The local zone is UTC, as in the API server's and Kyverno's containers: a zone abbreviation other than UTC
(or GMT+N) keeps the time as read with a zero offset, as Go does for a name it does not know.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# Layout elements (Go's std values, by the text that stands for them in a layout).
LONG_MONTH, MONTH, NUM_MONTH, ZERO_MONTH = "January", "Jan", "1", "01"
LONG_WEEKDAY, WEEKDAY = "Monday", "Mon"
DAY, UNDER_DAY, ZERO_DAY, UNDER_YEAR_DAY, ZERO_YEAR_DAY = "2", "_2", "02", "__2", "002"
HOUR, HOUR12, ZERO_HOUR12, MINUTE, ZERO_MINUTE, SECOND, ZERO_SECOND = "15", "3", "03", "4", "04", "5", "05"
LONG_YEAR, YEAR, PM_UPPER, PM_LOWER, ZONE_NAME = "2006", "06", "PM", "pm", "MST"
FRACTION0, FRACTION9 = ".0", ".9"  # with a digit count
# Numeric zones: text -> (whether `Z` stands for UTC there, the offset's shape)
_NUMERIC_ZONES = {
    "Z070000": (True, "hhmmss"),
    "Z07:00:00": (True, "hh:mm:ss"),
    "Z0700": (True, "hhmm"),
    "Z07:00": (True, "hh:mm"),
    "Z07": (True, "hh"),
    "-070000": (False, "hhmmss"),
    "-07:00:00": (False, "hh:mm:ss"),
    "-0700": (False, "hhmm"),
    "-07:00": (False, "hh:mm"),
    "-07": (False, "hh"),
}
_ZERO_ELEMENTS = {"1": ZERO_MONTH, "2": ZERO_DAY, "3": ZERO_HOUR12, "4": ZERO_MINUTE, "5": ZERO_SECOND, "6": YEAR}

_SHORT_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LONG_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SHORT_DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
_LONG_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_DAYS_IN = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365)


class GoTimeError(ValueError):
    """Go's time.ParseError, in its words."""


class _Bad(Exception):
    """The element cannot be read (Go's errBad): reported with the value as it was before the element."""


class _OutOfRange(Exception):
    """The element was read but its value is out of range: `month out of range`."""


class Element(NamedTuple):
    """One element of a layout: the literal text before it, what it stands for, its text in the layout."""

    prefix: str
    kind: str  # one of the element names above, a key of _NUMERIC_ZONES, or "" for the end
    text: str
    digits: int = 0  # a fraction's digit count


def parse(layout: str, value: str) -> dt.datetime:
    """`time.Parse(layout, value)` as an aware datetime, to the microsecond; GoTimeError with Go's words
    when Go refuses it."""
    data = value.encode("utf-8", "surrogatepass")
    elements = _elements(layout)
    read = _Reading()
    rest = data
    for index, element in enumerate(elements):
        try:
            rest = _skip(rest, element.prefix.encode())
        except _Bad as bad:
            raise GoTimeError(_cannot_parse(layout, data, bad.args[0], element.prefix.encode())) from None
        if not element.kind:
            if rest:
                raise GoTimeError(f"parsing time {_quote(data)}: extra text: {_quote(rest)}")
            break
        held = rest
        following = elements[index + 1].kind
        try:
            rest = _read(element, rest, following, read)
        except _OutOfRange as out_of_range:
            raise GoTimeError(f"parsing time {_quote(data)}: {out_of_range} out of range") from None
        except _Bad:
            raise GoTimeError(_cannot_parse(layout, data, held, element.text.encode())) from None
    return read.time(data)


def parse_error(layout: str, value: str) -> str | None:
    """Go's error for `time.Parse(layout, value)`, or None when it parses."""
    try:
        parse(layout, value)
    except GoTimeError as error:
        return str(error)
    return None


@lru_cache(maxsize=256)
def _elements(layout: str) -> tuple[Element, ...]:
    """The layout as Go's nextStdChunk splits it, ending with an element of kind "" (the text after the last)."""
    out, start = [], 0
    while True:
        at, element = _next_element(layout, start)
        out.append(element._replace(prefix=layout[start:at]))
        if not element.kind:
            return tuple(out)
        start = at + len(element.text)


def _next_element(layout: str, start: int) -> tuple[int, Element]:
    """Where the first element at or after `start` begins, and the element (kind "" at the end): one branch
    per first letter, in Go's order."""
    for i in range(start, len(layout)):
        c = layout[i]
        if c == "J" and layout.startswith("Jan", i):
            if layout.startswith("January", i):
                return i, Element("", LONG_MONTH, "January")
            if not _lower(layout, i + 3):
                return i, Element("", MONTH, "Jan")
        elif c == "M":
            if layout.startswith("Mon", i):
                if layout.startswith("Monday", i):
                    return i, Element("", LONG_WEEKDAY, "Monday")
                if not _lower(layout, i + 3):
                    return i, Element("", WEEKDAY, "Mon")
            if layout.startswith("MST", i):
                return i, Element("", ZONE_NAME, "MST")
        elif c == "0":
            if layout[i + 1 : i + 2] in _ZERO_ELEMENTS and i + 1 < len(layout):
                return i, Element("", _ZERO_ELEMENTS[layout[i + 1]], layout[i : i + 2])
            if layout.startswith("002", i):
                return i, Element("", ZERO_YEAR_DAY, "002")
        elif c == "1":
            if layout.startswith("15", i):
                return i, Element("", HOUR, "15")
            return i, Element("", NUM_MONTH, "1")
        elif c == "2":
            if layout.startswith("2006", i):
                return i, Element("", LONG_YEAR, "2006")
            return i, Element("", DAY, "2")
        elif c == "_":
            if layout.startswith("_2", i):
                if layout.startswith("_2006", i):  # a literal `_`, then the year
                    return i + 1, Element("", LONG_YEAR, "2006")
                return i, Element("", UNDER_DAY, "_2")
            if layout.startswith("__2", i):
                return i, Element("", UNDER_YEAR_DAY, "__2")
        elif c in "345":
            return i, Element("", {"3": HOUR12, "4": MINUTE, "5": SECOND}[c], c)
        elif c == "P" and layout.startswith("PM", i):
            return i, Element("", PM_UPPER, "PM")
        elif c == "p" and layout.startswith("pm", i):
            return i, Element("", PM_LOWER, "pm")
        elif c in "-Z":
            for text in _NUMERIC_ZONES:  # longest first within each sign, as Go tries them
                if text[0] == c and layout.startswith(text, i):
                    return i, Element("", text, text)
        elif c in ".," and layout[i + 1 : i + 2] in ("0", "9"):
            digit, j = layout[i + 1], i + 1
            while j < len(layout) and layout[j] == digit:
                j += 1
            if not ("0" <= layout[j : j + 1] <= "9" and j < len(layout)):  # the digits end the fraction
                kind = FRACTION0 if digit == "0" else FRACTION9
                return i, Element("", kind, layout[i:j], j - i - 1)
    return len(layout), Element("", "", "")


def _lower(layout: str, index: int) -> bool:
    """Go's startsWithLowerCase: an ASCII lower-case letter at `index` (so `Month` is no `Mon`)."""
    return "a" <= layout[index : index + 1] <= "z" and index < len(layout)


class _Reading:
    """What the elements read so far (Go's parse locals)."""

    def __init__(self) -> None:
        self.year = 0
        self.month = self.day = self.year_day = -1
        self.hour = self.minute = self.second = self.nanos = 0
        self.pm = self.am = False
        self.utc = False
        self.offset: int | None = None  # seconds east of UTC
        self.zone_name = ""

    def time(self, data: bytes) -> dt.datetime:
        """The time read, checked as Go checks it once every element is read."""
        if self.pm and self.hour < 12:
            self.hour += 12
        elif self.am and self.hour == 12:
            self.hour = 0
        if self.year_day >= 0:
            self._from_year_day(data)
        else:
            self.month = 1 if self.month < 0 else self.month
            self.day = 1 if self.day < 0 else self.day
        if self.day < 1 or self.day > _days_in(self.month, self.year):
            raise GoTimeError(f"parsing time {_quote(data)}: day out of range")
        return self._datetime()

    def _from_year_day(self, data: bytes) -> None:
        year_day, month, day = self.year_day, 0, 0
        if _is_leap(self.year):
            if year_day == 31 + 29:
                month, day = 2, 29
            elif year_day > 31 + 29:
                year_day -= 1
        if year_day < 1 or year_day > 365:
            raise GoTimeError(f"parsing time {_quote(data)}: day-of-year out of range")
        if month == 0:
            month = (year_day - 1) // 31 + 1
            if _DAYS_BEFORE[month] < year_day:
                month += 1
            day = year_day - _DAYS_BEFORE[month - 1]
        if self.month >= 0 and self.month != month:
            raise GoTimeError(f"parsing time {_quote(data)}: day-of-year does not match month")
        if self.day >= 0 and self.day != day:
            raise GoTimeError(f"parsing time {_quote(data)}: day-of-year does not match day")
        self.month, self.day = month, day

    def _datetime(self) -> dt.datetime:
        """Go's Date in the zone read. Go's year 0 and its offsets of a day or more (up to 24:60), which
        Python's datetime cannot hold, are moved into its range (the instant kept where it can be)."""
        year, day = self.year, self.day
        if year < 1:  # Go's year 0 (a layout without one): Python's first year, the date and clock kept
            year, day = 1, min(day, _days_in(self.month, 1))
        moment = dt.datetime(year, self.month, day, self.hour, self.minute, self.second, self.nanos // 1000)
        if self.utc or (self.offset is None and not self.zone_name):
            return moment.replace(tzinfo=dt.timezone.utc)
        if self.offset is None:  # a zone name: Go keeps the clock as read, in a zone of that name's offset
            offset = 0
            if self.zone_name.startswith("GMT") and len(self.zone_name) > 3:
                offset = int(self.zone_name[3:]) * 3600
            return moment.replace(tzinfo=dt.timezone.utc).astimezone(dt.timezone(dt.timedelta(seconds=offset)))
        delta = dt.timedelta(seconds=self.offset)
        if abs(delta) < dt.timedelta(days=1):
            return moment.replace(tzinfo=dt.timezone(delta))
        try:
            return (moment - delta).replace(tzinfo=dt.timezone.utc)
        except OverflowError:  # past year 1 or 9999 once moved to UTC
            return moment.replace(tzinfo=dt.timezone.utc)


def _read(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    """Read one element from `data` into `read`; the rest of `data`."""
    return _READERS[element.kind](element, data, following, read)


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


def _skip(data: bytes, prefix: bytes) -> bytes:
    """Go's skip: the layout's literal text, a run of spaces matching any run of spaces."""
    while prefix:
        if prefix[:1] == b" ":
            if data and data[:1] != b" ":
                raise _Bad(data)
            prefix, data = prefix.lstrip(b" "), data.lstrip(b" ")
            continue
        if not data or data[0] != prefix[0]:
            raise _Bad(data)
        prefix, data = prefix[1:], data[1:]
    return data


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


def _number3(data: bytes, fixed: bool) -> tuple[int, bytes]:
    """Go's getnum3: one to three digits (exactly three when `fixed`)."""
    count = 0
    while count < 3 and _is_digit(data, count):
        count += 1
    if count == 0 or fixed and count != 3:
        raise _Bad
    return int(data[:count]), data[count:]


def _atoi(data: bytes) -> int:
    """Go's time.atoi: an optional sign, then digits only."""
    negative = data[:1] == b"-"
    digits = data[1:] if data[:1] in (b"-", b"+") else data
    if digits and not digits.isdigit():
        raise _Bad
    number = int(digits) if digits else 0
    if number > 2**63:
        raise _Bad
    return -number if negative else number


def _lookup(names: tuple[str, ...], data: bytes) -> tuple[int, bytes]:
    """Go's lookup: the first name `data` starts with, ASCII letters compared without case."""
    for index, name in enumerate(names):
        size = len(name)
        if len(data) >= size and data[:size].lower() == name.lower().encode():  # bytes fold ASCII letters only
            return index, data[size:]
    raise _Bad


def _year(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if element.kind == YEAR:
        if len(data) < 2:
            raise _Bad
        year = _atoi(data[:2])
        read.year = year + 1900 if year >= 69 else year + 2000
        return data[2:]
    if len(data) < 4 or not _is_digit(data, 0):
        raise _Bad
    read.year = _atoi(data[:4])
    return data[4:]


def _month(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if element.kind in (MONTH, LONG_MONTH):
        index, rest = _lookup(_SHORT_MONTHS if element.kind == MONTH else _LONG_MONTHS, data)
        read.month = index + 1
        return rest
    month, rest = _number(data, element.kind == ZERO_MONTH)
    if not 1 <= month <= 12:
        raise _OutOfRange("month")
    read.month = month
    return rest


def _weekday(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    return _lookup(_SHORT_DAYS if element.kind == WEEKDAY else _LONG_DAYS, data)[1]  # only checked


def _day(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if element.kind == UNDER_DAY and data[:1] == b" ":
        data = data[1:]
    read.day, rest = _number(data, element.kind == ZERO_DAY)  # checked against the month at the end
    return rest


def _year_day(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    for _ in range(2):
        if element.kind == UNDER_YEAR_DAY and data[:1] == b" ":
            data = data[1:]
    read.year_day, rest = _number3(data, element.kind == ZERO_YEAR_DAY)
    return rest


def _clock(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    """An hour, minute or second; seconds take a fraction the layout does not have (`05` then `.123`)."""
    kind = element.kind
    number, rest = _number(data, kind in (ZERO_HOUR12, ZERO_MINUTE, ZERO_SECOND))
    if kind == HOUR:
        if number >= 24:
            raise _OutOfRange("hour")
        read.hour = number
    elif kind in (HOUR12, ZERO_HOUR12):
        if number > 12:
            raise _OutOfRange("hour")
        read.hour = number
    elif kind in (MINUTE, ZERO_MINUTE):
        if number >= 60:
            raise _OutOfRange("minute")
        read.minute = number
    else:
        if number >= 60:
            raise _OutOfRange("second")
        read.second = number
        fraction_next = following in (FRACTION0, FRACTION9)
        if not fraction_next and len(rest) >= 2 and rest[:1] in (b".", b",") and _is_digit(rest, 1):
            end = 2
            while _is_digit(rest, end):
                end += 1
            read.nanos = _nanoseconds(rest, end)
            rest = rest[end:]
    return rest


def _fraction(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if element.kind == FRACTION0:  # exactly the layout's digits
        size = 1 + element.digits
        if len(data) < size:
            raise _Bad
        read.nanos = _nanoseconds(data, size)
        return data[size:]
    if len(data) < 2 or data[:1] not in (b".", b",") or not _is_digit(data, 1):
        return data  # a `.999` fraction may be left out
    end = 1
    while _is_digit(data, end):
        end += 1
    read.nanos = _nanoseconds(data, end)
    return data[end:]


def _nanoseconds(data: bytes, size: int) -> int:
    """Go's parseNanoseconds of data[:size] (a separator, then digits: nine at most are read)."""
    if data[:1] not in (b".", b","):
        raise _Bad
    size = min(size, 10)
    nanos = _atoi(data[1:size])
    if nanos < 0:
        raise _OutOfRange("fractional second")
    return nanos * 10 ** (10 - size)


def _pm(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if len(data) < 2:
        raise _Bad
    word = data[:2].decode("latin-1")
    if element.kind == PM_LOWER:
        word = {"pm": "PM", "am": "AM"}.get(word, "")
    if word == "PM":
        read.pm = True
    elif word == "AM":
        read.am = True
    else:
        raise _Bad
    return data[2:]


_OFFSET_FIELDS = {  # shape -> (length, (start, end) of hours, minutes, seconds; positions of colons)
    "hh": (3, (1, 3), None, None, ()),
    "hhmm": (5, (1, 3), (3, 5), None, ()),
    "hh:mm": (6, (1, 3), (4, 6), None, (3,)),
    "hhmmss": (7, (1, 3), (3, 5), (5, 7), ()),
    "hh:mm:ss": (9, (1, 3), (4, 6), (7, 9), (3, 6)),
}


def _numeric_zone(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    """`Z` (where the layout has `Z`), or a sign and an offset (each part at most 24, 60, 60: Go's range
    test is lenient on purpose); the ranges are tested before a bad part is reported."""
    takes_z, shape = _NUMERIC_ZONES[element.kind]
    if takes_z and shape in ("hhmm", "hh", "hh:mm") and data[:1] == b"Z":
        read.utc = True
        return data[1:]
    size, hours_at, minutes_at, seconds_at, colons = _OFFSET_FIELDS[shape]
    if len(data) < size or any(data[at : at + 1] != b":" for at in colons):
        raise _Bad
    parts, bad = [], False
    for at in (hours_at, minutes_at, seconds_at):
        if at is None or bad:
            parts.append(0)
            continue
        try:
            parts.append(_number(data[at[0] : at[1]], True)[0])
        except _Bad:
            parts.append(0)
            bad = True
    hours, minutes, seconds = parts
    for name, number in (("second", seconds), ("minute", minutes), ("hour", hours)):
        if number > (24 if name == "hour" else 60):
            raise _OutOfRange(f"time zone offset {name}")
    if bad or data[:1] not in (b"+", b"-"):
        raise _Bad
    offset = (hours * 3600 + minutes * 60 + seconds) * (-1 if data[:1] == b"-" else 1)
    read.offset = None if offset == -1 else offset  # Go's "no offset read" is -1: so is -00:00:01
    return data[size:]


def _zone_name(element: Element, data: bytes, following: str, read: _Reading) -> bytes:
    if data[:3] == b"UTC":
        read.utc = True
        return data[3:]
    size = _zone_name_size(data)
    if not size:
        raise _Bad
    read.zone_name = data[:size].decode("ascii")
    return data[size:]


def _zone_name_size(data: bytes) -> int:
    """Go's parseTimeZone: the length of a zone abbreviation at the start of `data`, 0 when there is none."""
    if len(data) < 3:
        return 0
    if data[:4] in (b"ChST", b"MeST"):
        return 4
    if data[:3] == b"GMT":
        return 3 + _signed_offset_size(data[3:]) if len(data) > 3 else 3
    if data[:1] in (b"+", b"-"):
        return _signed_offset_size(data)
    upper = 0
    while upper < 6 and upper < len(data) and 0x41 <= data[upper] <= 0x5A:
        upper += 1
    if upper == 3:
        return 3
    if upper == 4 and (data[3:4] == b"T" or data[:4] == b"WITA"):
        return 4
    if upper == 5 and data[4:5] == b"T":
        return 5
    return 0


def _signed_offset_size(data: bytes) -> int:
    """Go's parseSignedOffset: a sign and a number up to 23 (`+03`)."""
    if data[:1] not in (b"+", b"-"):
        return 0
    end = 1
    while _is_digit(data, end):
        end += 1
    if end == 1 or int(data[1:end]) > 23:
        return 0
    return end


_READERS: dict[str, Callable[[Element, bytes, str, _Reading], bytes]] = {
    LONG_YEAR: _year,
    YEAR: _year,
    LONG_MONTH: _month,
    MONTH: _month,
    NUM_MONTH: _month,
    ZERO_MONTH: _month,
    LONG_WEEKDAY: _weekday,
    WEEKDAY: _weekday,
    DAY: _day,
    UNDER_DAY: _day,
    ZERO_DAY: _day,
    UNDER_YEAR_DAY: _year_day,
    ZERO_YEAR_DAY: _year_day,
    HOUR: _clock,
    HOUR12: _clock,
    ZERO_HOUR12: _clock,
    MINUTE: _clock,
    ZERO_MINUTE: _clock,
    SECOND: _clock,
    ZERO_SECOND: _clock,
    FRACTION0: _fraction,
    FRACTION9: _fraction,
    PM_UPPER: _pm,
    PM_LOWER: _pm,
    ZONE_NAME: _zone_name,
    **{text: _numeric_zone for text in _NUMERIC_ZONES},
}


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in(month: int, year: int) -> int:
    return 29 if month == 2 and _is_leap(year) else _DAYS_IN[month - 1]
