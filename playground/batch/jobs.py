"""Batch jobs: create one from a project and uploads, read its progress, cancel it.

A job copies what it runs (the chosen policies with the project's other documents, and the objects, split in
chunks), so editing the project later does not change a running job. Jobs are reached with the edit token
returned once at creation (X-Edit-Token), stored hashed like projects' (tokens.py), or with the project's
own edit token: a dump of a cluster may name every workload of it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evaluator.batch import with_namespaces
from playground.batch import inputs, progress, runner
from playground.batch.models import BatchChunk, BatchJob
from playground.models import Project
from playground.services import project_service
from playground.core import tokens
from playground.core.errors import ServiceError, not_found


def create_job(
    project_id: Any, chosen: Any, uploads: list[tuple[str, bytes | str]], cluster: dict | None = None
) -> tuple[dict, str]:
    """A queued job and its edit token; its chunks are sent to the workers once the job is committed. With
    `cluster` ({kinds, namespace, labelSelector}) the job is `reading` first: a worker reads its objects from the
    connected cluster, with progress, then queues its chunks (cluster_inputs.py)."""
    if not isinstance(project_id, str) or not project_id:
        raise ServiceError(
            "invalid_request", "project: give the id of the project whose policies to run", path="project"
        )
    state = project_service.project_state(project_id)
    project_objects, warnings = inputs.project_objects(state["documents"])
    documents, keys = inputs.choose(project_objects, chosen)
    inputs.refuse_unloadable(inputs.policies_of(project_objects, state["kubernetesVersion"]), keys)
    if cluster is not None:  # read on a worker, the job's first phase (cluster_inputs.py)
        return _reading_job(state, documents, keys, warnings, cluster)
    objects, sources = inputs.read_inputs(uploads)
    documents = with_namespaces(documents, objects)
    token = tokens.new_token()
    with transaction.atomic():
        job = BatchJob.objects.create(
            id=tokens.new_project_id(16),
            project_id=state["id"],
            title=state["title"][:200],
            documents=documents,
            policies=keys,
            kubernetes_version=state["kubernetesVersion"],
            sources=sources,
            warnings=warnings,
            total=len(objects),
            edit_token_hash=tokens.hash_token(token),
        )
        runner.queue_chunks(job.id, objects)
    return job_state(job), token


def _reading_job(state: dict, documents: list, keys: list, warnings: list, cluster: dict) -> tuple[dict, str]:
    """A job whose objects a worker reads from the connected cluster first, with progress."""
    from playground.batch import cluster_inputs

    source = cluster_inputs.source_of(cluster)
    token = tokens.new_token()
    with transaction.atomic():
        job = BatchJob.objects.create(
            id=tokens.new_project_id(16),
            project_id=state["id"],
            title=state["title"][:200],
            documents=documents,
            policies=keys,
            kubernetes_version=state["kubernetesVersion"],
            sources=[source],
            warnings=warnings,
            status=BatchJob.READING,
            edit_token_hash=tokens.hash_token(token),
        )
        transaction.on_commit(lambda: runner.dispatch_read(job.id))
    return job_state(job), token


def get_job(job_id: Any, token: str | None) -> BatchJob:
    if not isinstance(job_id, str) or not job_id.isalnum():
        raise not_found("batch job")
    job = BatchJob.objects.filter(id=job_id).first()
    if job is None:
        raise not_found("batch job")
    if not tokens.token_matches(token, job.edit_token_hash) and not _project_token(job.project_id, token):
        raise ServiceError("forbidden", "this batch job's edit token is required (X-Edit-Token)", 403)
    return job


def _project_token(project_id: str, token: str | None) -> bool:
    """The project's owner may follow every job run on it."""
    project = Project.objects.filter(id=project_id).only("edit_token_hash").first()
    return project is not None and tokens.token_matches(token, project.edit_token_hash)


def job_state(job: BatchJob) -> dict:
    """Progress: objects done of total, rate (objects/s since the first chunk started) and ETA."""
    elapsed = None
    if job.started:
        elapsed = ((job.finished or timezone.now()) - job.started).total_seconds()
    rate = job.done / elapsed if elapsed and job.done else None
    eta = (job.total - job.done) / rate if rate and job.status in runner.ACTIVE else None
    # How long no worker has taken any chunk: the page asks whether a worker runs (Celery needs its own).
    waiting = (timezone.now() - job.created).total_seconds() if job.status == BatchJob.QUEUED else None
    return {
        "id": job.id,
        "project": job.project_id,
        "title": job.title,
        "status": job.status,
        "total": job.total,
        "done": job.done,
        "denied": job.denied,
        "rate": round(rate, 1) if rate else None,
        "etaSeconds": round(eta, 1) if eta is not None else None,
        "elapsedSeconds": round(elapsed, 2) if elapsed is not None else None,
        "waitingSeconds": round(waiting, 1) if waiting is not None else None,
        "policies": job.policies,
        "kubernetesVersion": job.kubernetes_version,
        "sources": job.sources,
        "warnings": job.warnings,
        "error": job.error or None,
        "created": job.created.isoformat(),
    }


def recover(job: BatchJob) -> None:
    """Send again the chunks whose worker was lost (runner.recover) and, on the local backend, the queued ones
    this process does not hold (sent before a restart). Whoever follows a job does this: a status read, and a
    socket watching it (consumer.py), so a crashed worker's chunks run again while anyone looks."""
    resend = runner.recover(job)
    if settings.PLAYGROUND_BATCH_BACKEND != "celery" and job.status in runner.ACTIVE:
        from playground.batch import local

        queued = list(job.chunks.filter(status=BatchChunk.QUEUED).values_list("id", flat=True))
        resend += [c for c in local.orphans(queued) if c not in resend]
    runner.dispatch(resend)


def status(job_id: Any, token: str | None) -> dict:
    """The job's progress; looking also sends again the chunks whose worker was lost (recover)."""
    job = get_job(job_id, token)
    recover(job)
    job.refresh_from_db()
    return job_state(job)


def watched_state(job_id: str, recovering: bool = False) -> dict:
    """The progress of a job a socket watches (its token was checked when it said hello); `recovering` also
    sends again lost chunks, as a status read does."""
    job = BatchJob.objects.filter(id=job_id).first()
    if job is None:
        raise not_found("batch job")
    if recovering:
        recover(job)
        job.refresh_from_db()
    return job_state(job)


def cancel(job_id: Any, token: str | None) -> dict:
    """Stop the job: queued chunks are not run; chunks already running finish but are not counted."""
    job = get_job(job_id, token)
    with transaction.atomic():
        BatchJob.objects.filter(id=job.id, status__in=runner.ACTIVE).update(
            status=BatchJob.CANCELLED, finished=timezone.now()
        )
        queued = list(job.chunks.filter(status=BatchChunk.QUEUED).values_list("id", flat=True))
        BatchChunk.objects.filter(id__in=queued).update(status=BatchChunk.CANCELLED)
        progress.changed(job.id)
    if settings.PLAYGROUND_BATCH_BACKEND != "celery":
        from playground.batch import local

        local.cancel(queued)
    job.refresh_from_db()
    return job_state(job)
