"""A project's version history: the snapshots taken of it (models.ProjectVersion), numbered 1, 2, … in order,
and the snapshot it was forked from. Taking a snapshot records it (snapshot_service.record_version); taking one
of unchanged content adds no version."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max

from playground.impact.models import ProjectVersion
from playground.models import Snapshot
from playground.services import project_service
from playground.core.errors import ServiceError

HISTORY_LIMIT = 200  # versions listed (the newest)


def _policies(content: dict) -> list[str]:
    from playground.impact import sides

    return sides.policy_keys(content.get("documents") or [])


def history(project_id: str) -> dict:
    """{project, current, versions: [{number, snapshot, created, projectVersion, policies}], forkedFrom}, newest
    version first."""
    state = project_service.project_state(project_id)
    rows = ProjectVersion.objects.filter(project_id=state["id"]).select_related("snapshot").order_by("-number")
    versions = [
        {
            "number": row.number,
            "snapshot": row.snapshot_id,
            "created": row.created.isoformat(),
            "kept": row.created.strftime("%Y-%m-%d %H:%M UTC"),
            "projectVersion": row.project_version,
            "title": row.snapshot.content.get("title") or "",
            "policies": _policies(row.snapshot.content),
        }
        for row in rows[:HISTORY_LIMIT]
    ]
    origin = None
    if state["forkedFrom"]:
        snapshot = Snapshot.objects.filter(pk=state["forkedFrom"]).first()
        if snapshot is not None:
            origin = {
                "snapshot": snapshot.id,
                "created": snapshot.created.isoformat(),
                "title": snapshot.content.get("title") or "",
                "policies": _policies(snapshot.content),
            }
    return {
        "project": state["id"],
        "title": state["title"],
        "current": {
            "projectVersion": state["version"],
            "updated": state["updated"],
            "saved": datetime.fromisoformat(state["updated"]).strftime("%Y-%m-%d %H:%M UTC"),
            "policies": _policies(state),
        },
        "versions": versions,
        "forkedFrom": origin,
    }


def content_of(project_id: str, number: int) -> dict:
    """The snapshot content of version `number` of the project; 404 naming the versions it has."""
    row = ProjectVersion.objects.filter(project_id=project_id, number=number).select_related("snapshot").first()
    if row is None:
        newest = ProjectVersion.objects.filter(project_id=project_id).aggregate(n=Max("number"))["n"]
        has = f"it has versions 1–{newest}" if newest else "it has none yet: take a snapshot to keep one"
        raise ServiceError("not_found", f"project {project_id} has no version {number} ({has})", 404)
    return row.snapshot.content
