"""Create an impact job: base and head policy sets (sides.py) over a corpus (corpus.py), as a BatchJob of kind
"impact" whose chunks are replay items. The batch runner runs it on the batch workers (Celery or the local
pool) exactly as a batch job (claim under a lease, store, recover, cancel), and its progress streams on the
same socket (ws/batch/<id>/); only a chunk's compute and the summary's merge differ (playground/batch/kinds.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from evaluator.batch import with_namespaces
from playground.batch import kinds, runner
from playground.batch.jobs import get_job, job_state
from playground.batch.models import BatchJob
from playground.core import tokens
from playground.core.errors import ServiceError
from playground.impact import corpus, sides


def _refuse_unloadable(side: dict, path: str) -> None:
    """A policy that does not load would run as if it admitted everything: every change it makes would look
    like a new denial or a new allowance. Refuse, naming it and its side."""
    if side["broken"]:
        key, error = next(iter(side["broken"].items()))
        more = f" (and {len(side['broken']) - 1} more)" if len(side["broken"]) > 1 else ""
        raise ServiceError(
            "invalid_policy",
            f"{path}: {key!r} of {side['label']} does not load{more}: {error} (fix it, or compare other versions)",
            path=path,
        )


def create(base: Any, head: Any, kind: Any, uploads: list[tuple[str, bytes | str]]) -> tuple[dict, str]:
    """A queued impact job and its edit token."""
    base, head = sides.clean(base, "base"), sides.clean(head, "head")
    if base == head:
        raise ServiceError(
            "same_sides",
            "base and head are the same policy set: compare a kept version with the project now, or another project",
            path="head",
        )
    base_side, head_side = sides.resolve(base, "base"), sides.resolve(head, "head")
    if not base_side["policies"] and not head_side["policies"]:
        raise ServiceError("no_policies", "neither side has an admission policy: there is nothing to compare")
    _refuse_unloadable(base_side, "base")
    _refuse_unloadable(head_side, "head")
    corpus_kind, items, sources, warnings = corpus.read(uploads, corpus.clean_kind(kind))
    if len(items) > settings.PLAYGROUND_BATCH_MAX_OBJECTS:
        raise ServiceError(
            "too_large",
            f"more than {settings.PLAYGROUND_BATCH_MAX_OBJECTS:,} requests; replay the corpus in parts",
            413,
        )
    objects = [item["request"].get("object") for item in items]
    objects = [o for o in objects if isinstance(o, dict)]
    documents = {
        "base": with_namespaces(base_side["documents"], objects),
        "head": with_namespaces(head_side["documents"], objects),
        "corpus": corpus_kind,
        "sides": {name: _described(side) for name, side in (("base", base_side), ("head", head_side))},
    }
    token = tokens.new_token()
    with transaction.atomic():
        job = BatchJob.objects.create(
            id=tokens.new_project_id(16),
            kind=kinds.IMPACT,
            project_id=head_side["project"],
            title=f"{base_side['label']} → {head_side['label']}"[:200],
            documents=documents,
            policies=sorted(set(base_side["policies"]) | set(head_side["policies"])),
            kubernetes_version=head_side["kubernetesVersion"],
            sources=sources,
            warnings=base_side["warnings"] + head_side["warnings"] + warnings,
            total=len(items),
            edit_token_hash=tokens.hash_token(token),
        )
        runner.queue_chunks(job.id, items)
    return state(job), token


def _described(side: dict) -> dict:
    return {k: side[k] for k in ("label", "project", "version", "policies", "kubernetesVersion")}


def state(job: BatchJob) -> dict:
    """The batch job's progress, with what was compared over what."""
    documents = job.documents if isinstance(job.documents, dict) else {}
    return {**job_state(job), "kind": job.kind, "corpus": documents.get("corpus"), "sides": documents.get("sides")}


def impact_job(job_id: Any, token: str | None) -> BatchJob:
    """The impact job (404 for a batch job: its results have another shape)."""
    job = get_job(job_id, token)
    if job.kind != kinds.IMPACT:
        raise ServiceError("not_found", "impact job not found", 404)
    return job
