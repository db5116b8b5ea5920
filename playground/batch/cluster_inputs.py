"""A batch job's objects read from the connected cluster (issue 37) instead of an upload: the kinds the chosen
policies match (or those named), optionally one namespace and a label selector, read-only and capped at
PLAYGROUND_BATCH_MAX_OBJECTS.

The read is the job's first phase, on a batch worker (`read_job`), not in the request that creates the job: the
job is `reading` meanwhile and its source says how far (`reading deployments.apps: 300/1,000`, per page), so
the page shows progress and can cancel. It is bounded by PLAYGROUND_CLUSTER_DEADLINE_SECONDS. Then the objects
become chunks and the job is queued as any other. A kind that could not be read is a warning of the job naming it
and why (403, an API group whose discovery failed); a cluster that cannot be read at all fails the job, saying why.
A worker lost while reading: the job fails once the deadline and a lease have passed (runner.recover)."""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, transaction

from evaluator.batch import with_namespaces
from evaluator.batch.cluster import objects_for
from evaluator.cluster import ClusterError, ClusterReader, ReadOnlyClient
from evaluator.cluster.client import cluster_label
from playground.batch import progress
from playground.batch.models import BatchJob
from playground.core.database import release_connection
from playground.services import cluster_service

__all__ = ["source_of", "read_job", "stalled_before"]

PROGRESS_EVERY = 0.25  # seconds between two progress writes (every page would write thousands for a big list)


def source_of(spec: dict) -> dict:
    """The job's one source while it is read: its name, what to read, nothing read yet. Refuses (404) when no
    cluster is connected, before any job exists."""
    name = f"cluster {cluster_label(cluster_service.connection()) or 'in-cluster'}"
    return {"name": name, "objects": 0, "cluster": spec, "reading": None, "kinds": []}


def stalled_before() -> timedelta:
    """A job still `reading` this long after it was created lost its worker: the read itself stops at the
    deadline."""
    return timedelta(seconds=settings.PLAYGROUND_CLUSTER_DEADLINE_SECONDS + settings.PLAYGROUND_BATCH_LEASE_SECONDS)


class _Progress:
    """Writes `reading {kind, read, total}` to the job's source at most every PROGRESS_EVERY s (and each new kind),
    and keeps a line per kind read; the job's watchers are told each time."""

    def __init__(self, job: BatchJob):
        self.job, self.source = job, dict(job.sources[0])
        self.kinds: list[dict] = []
        self.written = 0.0

    def __call__(self, kind: str, read: int, total: int | None) -> None:
        entry = {"kind": kind, "read": read, "total": total}
        new_kind = not self.kinds or self.kinds[-1]["kind"] != kind
        if new_kind:
            self.kinds.append(entry)
        else:
            self.kinds[-1] = entry
        if new_kind or time.monotonic() - self.written >= PROGRESS_EVERY:
            self.write(entry)

    def write(self, reading: dict | None) -> None:
        self.written = time.monotonic()
        self.source = {**self.source, "reading": reading, "kinds": self.kinds}
        if BatchJob.objects.filter(id=self.job.id, status=BatchJob.READING).update(sources=[self.source]):
            progress.changed(self.job.id)
        release_connection()  # the next page may take a while: hold no database slot meanwhile


def read_job(job_id: str) -> None:
    """Read a `reading` job's objects from the cluster, then queue its chunks (or fail it, saying why)."""
    from playground.batch import runner

    close_old_connections()
    try:
        job = BatchJob.objects.filter(id=job_id, status=BatchJob.READING).first()
        if job is None:  # cancelled, or read already
            return
        spec = job.sources[0].get("cluster") or {}
        heard = _Progress(job)
        release_connection()  # a slow cluster holds no database slot
        try:
            client = ReadOnlyClient(cluster_service.connection())
            with client:
                objects, namespaces, errors = objects_for(
                    ClusterReader(client, cluster_service.allowed()),
                    job.documents,
                    kinds=spec.get("kinds") or None,
                    namespace=spec.get("namespace") or None,
                    selector=spec.get("labelSelector") or None,
                    cap=settings.PLAYGROUND_BATCH_MAX_OBJECTS,
                    progress=heard,
                )
        except ClusterError as exc:
            runner.fail_job(job.id, exc.message)
            return
        except Exception as exc:  # a bug of ours: the job says so rather than staying `reading`
            runner.fail_job(job.id, f"the cluster could not be read: {type(exc).__name__}: {exc}")
            raise
        failed = {e.what: e.message for e in errors}
        heard.kinds += [{"kind": what, "error": message} for what, message in failed.items()]
        if not objects:
            reason = "; ".join(failed.values()) or "the cluster holds no object of the kinds these policies match"
            runner.fail_job(job.id, reason)
            return
        _queue(job, objects, namespaces, heard, errors)
    finally:
        close_old_connections()


def _queue(job: BatchJob, objects: list[dict], namespaces: list[dict], heard: _Progress, errors: list) -> None:
    from playground.batch import runner

    source = {**heard.source, "objects": len(objects), "reading": None, "kinds": heard.kinds}
    warnings = [{"severity": "warning", "source": "cluster", "message": e.message} for e in errors]
    with transaction.atomic():
        queued = BatchJob.objects.filter(id=job.id, status=BatchJob.READING).update(
            status=BatchJob.QUEUED,
            documents=with_namespaces(job.documents, namespaces + objects),
            sources=[source],
            warnings=job.warnings + warnings,
            total=len(objects),
        )
        if not queued:  # cancelled while reading
            return
        runner.queue_chunks(job.id, objects)
        progress.changed(job.id)
