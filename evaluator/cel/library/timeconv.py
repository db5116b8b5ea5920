"""Parsing and formatting of CEL timestamps and durations the way cel-go (Go's time package) does."""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from evaluator.cel.errors import CELEvalError
from evaluator.cel.values import DUR_MAX_NANOS, Duration, Timestamp

_NANOS = 1_000_000_000
_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def parse_timestamp(text: str) -> Timestamp:
    m = _RFC3339.match(text)
    if not m:
        raise CELEvalError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse "{text}"')
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    frac = int((m.group(7) or "").ljust(9, "0") or 0)
    try:
        base = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone.utc)
    except ValueError as e:
        raise CELEvalError(f'parsing time "{text}": {e}') from None
    offset = 0
    if m.group(9):
        offset = (int(m.group(10)) * 3600 + int(m.group(11)) * 60) * (1 if m.group(9) == "+" else -1)
    seconds = int((base - _EPOCH).total_seconds()) - offset
    ts = Timestamp(seconds * _NANOS + frac, offset)
    if not ts.in_range():
        raise CELEvalError("timestamp out of range")
    return ts


_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": _NANOS,
    "m": 60 * _NANOS,
    "h": 3600 * _NANOS,
}
_DUR_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> Duration:
    """Go's time.ParseDuration."""
    s = text
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise CELEvalError(f'time: invalid duration "{text}"')
    total = 0
    pos = 0
    while pos < len(s):
        m = _DUR_PART.match(s, pos)
        if not m or (not m.group(1) and not m.group(2)):
            raise _bad_part(text, s[pos:], m)
        total += _part_nanos(text, m)
        pos = m.end()
    if total > DUR_MAX_NANOS + (1 if neg else 0):
        raise CELEvalError(f'time: invalid duration "{text}"')
    return Duration(-total if neg else total)


def _bad_part(text: str, rest: str, m: re.Match | None) -> CELEvalError:
    """Go's error for a part that is not a number and a unit: a missing unit, an unknown one, or neither."""
    if m is None and re.match(r"\d*(?:\.\d*)?$", rest):
        return CELEvalError(f'time: missing unit in duration "{text}"')
    if m is None:
        um = re.match(r"(\d*(?:\.\d*)?)(\D+)", rest)
        if um and um.group(1):
            return CELEvalError(f'time: unknown unit "{um.group(2)}" in duration "{text}"')
    return CELEvalError(f'time: invalid duration "{text}"')


def _part_nanos(text: str, m: re.Match) -> int:
    """The nanoseconds of one `<whole>.<fraction><unit>` part (the fraction truncated, as Go does)."""
    unit = _UNITS[m.group(3)]
    whole_digits = (m.group(1) or "0").lstrip("0") or "0"
    if len(whole_digits) > 19:  # past int64 (Go's leadingInt overflows), and past what Python reads from text
        raise CELEvalError(f'time: invalid duration "{text}"')
    whole = int(whole_digits)
    frac_digits = (m.group(2) or "")[:30]  # further digits move the sum by far less than a nanosecond
    value = whole * unit
    if frac_digits:
        value += int(frac_digits) * unit // (10 ** len(frac_digits))
    return value


def timestamp_to_string(ts: Timestamp) -> str:
    """Go's time.RFC3339Nano in the timestamp's own offset: fraction digits with trailing zeros trimmed,
    `Z` for UTC, else `±hh:mm`."""
    secs, frac = divmod(ts.nanos, _NANOS)
    base = (_EPOCH + dt.timedelta(seconds=secs + ts.offset)).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        base += "." + f"{frac:09d}".rstrip("0")
    if not ts.offset:
        return base + "Z"
    sign = "+" if ts.offset > 0 else "-"
    hours, minutes = divmod(abs(ts.offset) // 60, 60)
    return f"{base}{sign}{hours:02d}:{minutes:02d}"


def duration_to_string(d: Duration) -> str:
    """cel-go's string(duration): seconds as the shortest decimal, with an 's' suffix."""
    sign = "-" if d.nanos < 0 else ""
    secs, frac = divmod(abs(d.nanos), _NANOS)
    if frac:
        return f"{sign}{secs}.{f'{frac:09d}'.rstrip('0')}s"
    return f"{sign}{secs}s"


@lru_cache(maxsize=256)
def zone(name: str) -> dt.tzinfo:
    m = re.fullmatch(r"([+-]?)(\d{1,2}):(\d{2})", name)
    if m:
        delta = dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))
        return dt.timezone(-delta if m.group(1) == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise CELEvalError(f"unknown time zone {name}") from None


def local_datetime(ts: Timestamp, tz: str | None = None) -> dt.datetime:
    base = _EPOCH + dt.timedelta(seconds=ts.seconds)
    if tz:
        return base.astimezone(zone(tz))
    return base.astimezone(dt.timezone(dt.timedelta(seconds=ts.offset))) if ts.offset else base
