"""A DeletingPolicy's `spec.schedule`: a cron expression (five fields, or a macro such as @hourly), and the
next time it fires after a given instant, in UTC (Kyverno's deleting controller computes execution times
with a cron parser and runs the policy at each one)."""

from __future__ import annotations

import datetime as dt

from croniter import croniter
from croniter.croniter import CroniterError


class ScheduleError(ValueError):
    pass


def parse_schedule(schedule: str) -> str:
    """The expression when it is a valid cron schedule; ScheduleError (with the parser's words) otherwise."""
    text = schedule.strip()
    if not text:
        raise ScheduleError("empty schedule")
    try:
        croniter(text, dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc))
    except (CroniterError, ValueError, KeyError) as err:
        raise ScheduleError(str(err) or "invalid cron expression") from None
    return text


def next_run(schedule: str, now: dt.datetime) -> dt.datetime:
    """The first time strictly after `now` at which the schedule fires (UTC)."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.timezone.utc)
    found = croniter(parse_schedule(schedule), now.astimezone(dt.timezone.utc)).get_next(dt.datetime)
    return found.astimezone(dt.timezone.utc)
