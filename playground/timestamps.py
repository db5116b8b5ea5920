"""Timestamps for people: a short absolute form on the page, the exact instant for `<time datetime>` and hover.

The browser turns the short form into "3 minutes ago" (static/src/human-time.js); without script the
absolute form stays, so a page never shows a raw ISO string.
"""

from __future__ import annotations

from datetime import datetime, timezone


def describe(iso: str | None) -> dict | None:
    """{"iso", "text", "exact"} for an ISO 8601 timestamp, or None when there is none (or it is not one)."""
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso).astimezone(timezone.utc)
    except (TypeError, ValueError):
        return None
    return {
        "iso": moment.isoformat(),
        "text": moment.strftime("%-d %b %Y, %H:%M UTC"),
        "exact": moment.strftime("%Y-%m-%d %H:%M:%S UTC"),
    }
