"""Rules an app adds to "may this token edit this project now?", so the core services need not know the app.

The workshops register one (a student's fork is read-only once the teacher's time box locked the editors);
`core/access.py authorize` runs them after the token check, on every write of both transports (REST and
the project socket, co-editing included), so no path around a rule remains.
"""

from __future__ import annotations

from collections.abc import Callable

from playground.models import Project

Guard = Callable[[Project], None]  # raises ServiceError to refuse the edit
_guards: list[Guard] = []


def register(guard: Guard) -> None:
    if guard not in _guards:
        _guards.append(guard)


def check(project: Project) -> None:
    for guard in _guards:
        guard(project)
