"""Go's time.Parse with a reference-time layout ("Mon Jan _2 15:04:05 MST 2006"), as Kyverno's time_parse and
time_since use it. Layout elements become regular-expression groups; an unknown zone abbreviation (MST) is a
zero offset, as Go fabricates it when the local zone does not know the name."""

from __future__ import annotations

import datetime as dt
import re

# Longest elements first, so "January" wins over "Jan" and "2006" over "2".
_ELEMENTS = [
    ("January", "month_name", r"[A-Za-z]+"),
    ("Monday", "weekday", r"[A-Za-z]+"),
    ("Z07:00", "zone", r"Z|[+-]\d\d:\d\d"),
    ("-07:00", "zone", r"[+-]\d\d:\d\d"),
    ("Z0700", "zone", r"Z|[+-]\d{4}"),
    ("-0700", "zone", r"[+-]\d{4}"),
    ("2006", "year", r"\d{4}"),
    ("Jan", "month_abbr", r"[A-Za-z]{3}"),
    ("Mon", "weekday", r"[A-Za-z]{3}"),
    ("MST", "zone_name", r"[A-Z]{3,5}"),
    ("-07", "zone", r"[+-]\d\d"),
    ("_2", "day", r"[ \d]?\d"),
    ("01", "month", r"\d\d"),
    ("02", "day", r"\d\d"),
    ("15", "hour", r"\d\d"),
    ("03", "hour12", r"\d\d"),
    ("04", "minute", r"\d\d"),
    ("05", "second", r"\d\d"),
    ("06", "year2", r"\d\d"),
    ("PM", "ampm", r"AM|PM"),
    ("1", "month", r"\d\d?"),
    ("2", "day", r"\d\d?"),
    ("3", "hour12", r"\d\d?"),
    ("4", "minute", r"\d\d?"),
    ("5", "second", r"\d\d?"),
]
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def _compile(layout: str) -> tuple[re.Pattern, list[str]]:
    pattern, names, i = "", [], 0
    while i < len(layout):
        if layout.startswith((".000", ".999"), i):  # fractional seconds
            j = i + 1
            while j < len(layout) and layout[j] in "09":
                j += 1
            pattern += rf"(?P<g{len(names)}>\.\d+)" + ("?" if layout[i + 1] == "9" else "")
            names.append("fraction")
            i = j
            continue
        for text, name, regex in _ELEMENTS:
            if layout.startswith(text, i):
                pattern += f"(?P<g{len(names)}>{regex})"
                names.append(name)
                i += len(text)
                break
        else:
            pattern += re.escape(layout[i])
            i += 1
    return re.compile(pattern), names


def parse(layout: str, value: str) -> dt.datetime:
    """The time `value` written in Go layout `layout`; ValueError with Go's wording when it does not match."""
    regex, names = _compile(layout)
    match = regex.fullmatch(value)
    if match is None:
        raise ValueError(f'parsing time "{value}" as "{layout}": cannot parse')
    parts = {"year": 1, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "micro": 0}
    offset, pm = dt.timedelta(0), None
    for index, name in enumerate(names):
        text = match.group(f"g{index}") or ""
        if name in ("year", "month", "day", "hour", "minute", "second"):
            parts[name] = int(text.strip())
        elif name == "year2":
            parts["year"] = 2000 + int(text) if int(text) < 69 else 1900 + int(text)
        elif name == "hour12":
            parts["hour"] = int(text) % 12
        elif name == "ampm":
            pm = text == "PM"
        elif name in ("month_name", "month_abbr"):
            parts["month"] = _MONTHS.index(text[:3].lower()) + 1
        elif name == "fraction" and text:
            parts["micro"] = int((text[1:] + "000000")[:6])
        elif name == "zone" and text != "Z":
            sign = -1 if text[0] == "-" else 1
            digits = text[1:].replace(":", "")
            offset = sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    if pm:
        parts["hour"] += 12
    return dt.datetime(
        parts["year"],
        parts["month"],
        parts["day"],
        parts["hour"],
        parts["minute"],
        parts["second"],
        parts["micro"],
        tzinfo=dt.timezone(offset),
    )
