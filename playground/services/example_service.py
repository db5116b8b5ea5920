"""The gallery: examples are YAML files in playground/examples/ (read-only), opened and forked as projects.

Each file: {title, description, tags, documents: [{name, text}], requests: [{name, text, expected?}]};
the slug is the file name without `.yaml`. `load_examples` also stores them as read-only example projects
(id `ex-<slug>`) so the live editor can show them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml
from django.db import transaction

from playground.models import Document, Project, SampleRequest
from playground.services import example_meta, project_service
from playground.core.errors import ServiceError, not_found
from playground.services.fork_titles import fork_title
from playground.core.expectations import clean_expected

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,80}$")
EXAMPLE_PROJECT_PREFIX = "ex-"


def _read(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list):
        raise ServiceError("invalid_example", f"{path.name}: an example needs a documents list")
    requests = data.get("requests") or []
    for request in requests:
        request["expected"] = clean_expected(request.get("expected"), request.get("name"))
    return {
        "slug": path.stem,
        "title": data.get("title", path.stem),
        "description": data.get("description", ""),
        "tags": list(data.get("tags") or []),
        **example_meta.describe(data),
        "documents": data["documents"],
        "requests": requests,
    }


@lru_cache(maxsize=1)
def _all() -> dict[str, dict]:
    return {path.stem: _read(path) for path in sorted(EXAMPLES_DIR.glob("*.yaml"))}


def list_examples() -> list[dict]:
    return [
        {key: value for key, value in example.items() if key not in ("documents", "requests")}
        for example in _all().values()
    ]


def get_example(*, slug: str) -> dict:
    if not _SLUG.match(slug or "") or slug not in _all():
        raise not_found("example")
    example = _all()[slug]
    return {**example, "projectId": EXAMPLE_PROJECT_PREFIX + slug}


def fork_example(*, slug: str) -> tuple[dict, str]:
    example = get_example(slug=slug)
    return project_service.create_project(
        fork_title(example["title"]), example["description"], example["documents"], example["requests"]
    )


def load_examples() -> list[str]:
    """Store (or refresh) every example as a read-only project `ex-<slug>`; returns the slugs."""
    _all.cache_clear()
    slugs = []
    for slug, example in _all().items():
        project_id = EXAMPLE_PROJECT_PREFIX + slug
        with transaction.atomic():
            existing = Project.objects.filter(pk=project_id).first()
            if existing is None:
                project_service.create_project(
                    example["title"],
                    example["description"],
                    example["documents"],
                    example["requests"],
                    project_id=project_id,
                    is_example=True,
                )
            else:
                existing.title, existing.description = example["title"], example["description"]
                existing.version += 1
                existing.save()
                existing.documents.all().delete()
                existing.requests.all().delete()
                Document.objects.bulk_create(
                    Document(project=existing, name=d["name"], text=d["text"], position=i, version=existing.version)
                    for i, d in enumerate(example["documents"])
                )
                SampleRequest.objects.bulk_create(
                    SampleRequest(
                        project=existing,
                        name=r["name"],
                        text=r["text"],
                        expected=r.get("expected"),
                        position=i,
                        version=existing.version,
                    )
                    for i, r in enumerate(example["requests"])
                )
        slugs.append(slug)
    return slugs
