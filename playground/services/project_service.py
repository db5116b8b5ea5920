"""Projects: creation (with the one-time edit token), reading the full state, metadata edits, versioning."""

from __future__ import annotations

import json

from django.db import transaction

from evaluator.cel.versions import NEWEST, parse_version
from playground.models import Document, Project, SampleRequest, Snapshot
from playground.core import edge, limits, tokens
from playground.core.access import authorize, can_edit
from playground.core.items import item_dict
from playground.core.errors import ServiceError, forbidden, not_found
from playground.core.expectations import clean_expected

TITLE_MAX = 200


def _clean_items(items, kind: str, with_expected: bool) -> list[dict]:
    """Items as ``{name, text[, expected]}`` or as the JSON object itself (stored as its JSON text, which is
    YAML too); an unknown field of the first form is refused, naming it."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise edge.invalid("must be an array", kind)
    limits.check_count(len(items), kind)
    allowed = {"name", "text", "expected"} if with_expected else {"name", "text"}
    cleaned = []
    for position, item in enumerate(items):
        where = f"{kind}[{position}]"
        if not isinstance(item, dict):
            raise edge.invalid("must be an object: {name, text} or a Kubernetes object", where)
        if "text" not in item:  # the object itself
            name = _object_name(item) or f"{kind[:-1]}-{position + 1}"
            entry = {"name": name[:200], "text": json.dumps(item, indent=2)}
            if with_expected:
                entry["expected"] = None
            limits.check_text(entry["text"], name)
            cleaned.append(entry)
            continue
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise edge.invalid(
                f"unknown field {unknown[0]!r} (give name and text{', expected' if with_expected else ''}"
                ", or the object itself)",
                f"{where}.{unknown[0]}",
            )
        name = item.get("name") or f"{kind[:-1]}-{position + 1}"
        edge.check_text(name, f"{where}.name")
        text = edge.check_text(item["text"], f"{where}.text")
        limits.check_text(text, name)
        entry = {"name": name[:200], "text": text}
        if with_expected:
            entry["expected"] = clean_expected(item.get("expected"), name)
        cleaned.append(entry)
    return cleaned


def _object_name(item: dict) -> str:
    metadata = item.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    kind = item.get("kind")
    parts = [part for part in (kind, name) if isinstance(part, str) and part]
    return "/".join(parts)


def create_project(
    title: str = "",
    description: str = "",
    documents=None,
    requests=None,
    *,
    forked_from: Snapshot | None = None,
    project_id: str | None = None,
    is_example: bool = False,
    kubernetes_version=None,
) -> tuple[dict, str | None]:
    """Create a project; returns (state, edit token). Example projects get no token (read-only)."""
    edge.check_text(title, "title")
    edge.check_text(description, "description")
    kubernetes_version = clean_kubernetes_version(kubernetes_version) if kubernetes_version is not None else ""
    docs = _clean_items(documents, "documents", with_expected=False)
    reqs = _clean_items(requests, "requests", with_expected=True)
    limits.check_total(limits.text_size(item["text"]) for item in docs + reqs)
    token = None if is_example else tokens.new_token()
    with transaction.atomic():
        project = Project.objects.create(
            id=project_id or tokens.new_project_id(),
            title=title[:TITLE_MAX],
            description=description,
            edit_token_hash=tokens.hash_token(token) if token else "",
            forked_from_snapshot=forked_from,
            is_example=is_example,
            kubernetes_version=kubernetes_version,
        )
        Document.objects.bulk_create(
            Document(project=project, name=d["name"], text=d["text"], position=i, version=project.version)
            for i, d in enumerate(docs)
        )
        SampleRequest.objects.bulk_create(
            SampleRequest(
                project=project,
                name=r["name"],
                text=r["text"],
                expected=r["expected"],
                position=i,
                version=project.version,
            )
            for i, r in enumerate(reqs)
        )
    return project_state(project.id), token


def _storable_id(value) -> bool:
    """Ids come from URLs: one PostgreSQL cannot store (NUL, lone surrogate) names no project."""
    return isinstance(value, str) and edge.text_problem(value) is None


def get_project(project_id: str) -> Project:
    if not _storable_id(project_id):
        raise not_found("project")
    try:
        return Project.objects.get(pk=project_id)
    except (Project.DoesNotExist, ValueError):
        raise not_found("project")


def project_state(project_id: str) -> dict:
    """The full project as the API and the WebSocket send it (never the token)."""
    project = get_project(project_id)
    return {
        "id": project.id,
        "title": project.title,
        "description": project.description,
        "version": project.version,
        "isExample": project.is_example,
        "kubernetesVersion": project.kubernetes_version or NEWEST,
        "forkedFrom": project.forked_from_snapshot_id,
        "created": project.created.isoformat(),
        "updated": project.updated.isoformat(),
        "documents": [item_dict(d, False) for d in project.documents.all()],
        "requests": [item_dict(r, True) for r in project.requests.all()],
    }


def export_state(project_id: str) -> dict:
    """The project as the formats export it: its state, with a Kubernetes version only when the project
    chose one (a project following the newest release would come back pinned to today's newest)."""
    state = project_state(project_id)
    if not get_project(project_id).kubernetes_version:
        state.pop("kubernetesVersion", None)
    return state


_NO_CHECK = object()


def bump_version(project_id: str, token=_NO_CHECK) -> Project:
    """Lock the project row and give it the next version (checking the token when given, on the locked row);
    call inside transaction.atomic()."""
    if not _storable_id(project_id):
        raise not_found("project")
    try:
        project = Project.objects.select_for_update().get(pk=project_id)
    except Project.DoesNotExist:
        raise not_found("project")
    if token is not _NO_CHECK:
        authorize(project, token)
    project.version += 1
    project.save(update_fields=["version", "updated"])
    return project


def clean_kubernetes_version(value) -> str:
    """A supported release as "1.N", or invalid_request naming the supported range."""
    try:
        return parse_version(value)
    except ValueError as exc:
        raise ServiceError("invalid_request", str(exc))


def update_metadata(
    *,
    project_id: str,
    token: str | None,
    title: str | None = None,
    description: str | None = None,
    kubernetes_version: str | None = None,
) -> dict:
    """Change the given metadata (None = unchanged; validated at the edge, the version's support here)."""
    project = get_project(project_id)
    authorize(project, token)
    if kubernetes_version is not None:
        kubernetes_version = clean_kubernetes_version(kubernetes_version)
    with transaction.atomic():
        project = bump_version(project_id)
        if title is not None:
            project.title = title[:TITLE_MAX]
        if description is not None:
            limits.check_text(description, "description")
            project.description = description
        if kubernetes_version is not None:
            project.kubernetes_version = kubernetes_version
        project.save(update_fields=["title", "description", "kubernetes_version", "updated"])
    return project_state(project_id)


def rotate_token(project_id: str, token: str | None) -> str:
    """Revoke every edit link of the project at once: a new token replaces the old one (returned once).
    Open connections holding the old token fail their next write, since every write checks it again."""
    with transaction.atomic():
        project = Project.objects.select_for_update().get(pk=get_project(project_id).pk)
        if not can_edit(project, token):  # not an edit: a locked workshop fork may still revoke its links
            raise forbidden()
        new = tokens.new_token()
        project.edit_token_hash = tokens.hash_token(new)
        project.save(update_fields=["edit_token_hash"])
    return new


def current_version(project_id: str) -> int:
    if not _storable_id(project_id):
        raise not_found("project")
    version = Project.objects.filter(pk=project_id).values_list("version", flat=True).first()
    if version is None:
        raise not_found("project")
    return version


def clean_contents(documents, requests) -> tuple[list[dict], list[dict]]:
    """Check stateless documents/requests like stored ones (types, expected, size limits); ids are positions."""
    docs = _clean_items(documents, "documents", with_expected=False)
    reqs = _clean_items(requests, "requests", with_expected=True)
    limits.check_total(limits.text_size(item["text"]) for item in docs + reqs)
    return ([{"id": i, **d} for i, d in enumerate(docs)], [{"id": i, **r} for i, r in enumerate(reqs)])
