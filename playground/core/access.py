"""Who may write to a project: the edit token, then the edit guards (a workshop's frozen exercise, ...).

Both transports and the co-editing authority ask here, so one rule decides every write."""

from __future__ import annotations

from playground.core import edit_guards, tokens
from playground.core.errors import forbidden
from playground.models import Project


def can_edit(project: Project, token: str | None) -> bool:
    return tokens.token_matches(token, project.edit_token_hash)


def authorize(project: Project, token: str | None) -> None:
    """The token may edit the project, and nothing forbids editing it now (core/edit_guards.py)."""
    if not can_edit(project, token):
        raise forbidden()
    edit_guards.check(project)
