"""Snapshots: immutable, content-addressed copies of a project pinned to the engine version; forking them."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import metadata

from django.db import IntegrityError, transaction

from evaluator.cel.versions import NEWEST
from playground.impact.models import ProjectVersion
from playground.models import Snapshot
from playground.services import project_service
from playground.core import tokens
from playground.core.edge import text_problem
from playground.core.errors import not_found
from playground.services.fork_titles import fork_title


@lru_cache(maxsize=1)
def engine_version() -> str:
    try:
        return metadata.version("admission-playground")
    except metadata.PackageNotFoundError:
        return "unknown"


def snapshot_content(state: dict) -> dict:
    """What a snapshot keeps: the texts as typed, without ids or versions (the Kubernetes version only when it
    is not the newest, so snapshots of projects that never chose one keep their content-derived ids)."""
    version = state.get("kubernetesVersion")
    return {
        **({"kubernetesVersion": version} if version and version != NEWEST else {}),
        "title": state["title"],
        "description": state["description"],
        "documents": [{"name": d["name"], "text": d["text"]} for d in state["documents"]],
        "requests": [{"name": r["name"], "text": r["text"], "expected": r.get("expected")} for r in state["requests"]],
    }


def snapshot_id(content: dict, version: str) -> str:
    canonical = json.dumps({"content": content, "engine": version}, sort_keys=True, separators=(",", ":"))
    return tokens.content_id(canonical.encode("utf-8"))


def create_snapshot(*, project_id: str) -> dict:
    """Snapshot the project as it is now; the same content (and engine) always gives the same id."""
    state = project_service.project_state(project_id)
    content = snapshot_content(state)
    version = engine_version()
    sid = snapshot_id(content, version)
    if not Snapshot.objects.filter(pk=sid).exists():
        try:
            with transaction.atomic():
                Snapshot.objects.create(id=sid, content=content, engine_version=version)
        except IntegrityError:  # created by a concurrent request: same id, same content
            pass
    record_version(state["id"], sid, state["version"])
    return {"id": sid, "url": f"/s/{sid}"}


def record_version(project_id: str, snapshot_id: str, project_version: int) -> None:
    """Number the snapshot as the project's next version (its version history, playground/impact), unless it
    is already its newest one: a snapshot of unchanged content adds no version."""
    for _ in range(3):  # two snapshots at once both read the same last number: the second tries again
        last = ProjectVersion.objects.filter(project_id=project_id).order_by("-number").first()
        if last is not None and last.snapshot_id == snapshot_id:
            return
        try:
            with transaction.atomic():
                ProjectVersion.objects.create(
                    project_id=project_id,
                    number=(last.number if last else 0) + 1,
                    snapshot_id=snapshot_id,
                    project_version=project_version,
                )
            return
        except IntegrityError:
            continue


def _snapshot(snapshot_id: str) -> Snapshot:
    try:
        if text_problem(snapshot_id) is not None:
            raise Snapshot.DoesNotExist
        return Snapshot.objects.get(pk=snapshot_id)
    except Snapshot.DoesNotExist:
        raise not_found("snapshot") from None


def get_snapshot(*, snapshot_id_: str) -> dict:
    snapshot = _snapshot(snapshot_id_)
    return {
        "id": snapshot.id,
        "engineVersion": snapshot.engine_version,
        "created": snapshot.created.isoformat(),
        "url": f"/s/{snapshot.id}",
        **snapshot.content,
    }


def fork_snapshot(*, snapshot_id_: str) -> tuple[dict, str]:
    snapshot = _snapshot(snapshot_id_)
    content = snapshot.content
    return project_service.create_project(
        fork_title(content.get("title")),
        content.get("description", ""),
        content.get("documents"),
        content.get("requests"),
        forked_from=snapshot,
        kubernetes_version=content.get("kubernetesVersion"),
    )
