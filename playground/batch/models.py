"""Batch job state lives here, not in a worker: a job survives a worker crash (its chunk's lease runs out and
the chunk runs again) and a web restart (queued chunks are sent again when the job is next looked at)."""

from __future__ import annotations

from django.db import models


class BatchJob(models.Model):
    QUEUED, RUNNING, DONE, CANCELLED, FAILED = "queued", "running", "done", "cancelled", "failed"
    READING = "reading"  # its objects are being read from the connected cluster (cluster_inputs.py), no chunk yet
    STATUSES = [(s, s) for s in (READING, QUEUED, RUNNING, DONE, CANCELLED, FAILED)]
    FINISHED = (DONE, CANCELLED, FAILED)

    id = models.CharField(primary_key=True, max_length=32)
    project_id = models.CharField(max_length=64, db_index=True)  # the source; the job keeps its own copy
    # "batch": one policy set over objects (documents: a list); "impact": base vs head over objects or audit
    # requests (documents: {"base": [...], "head": [...]}; playground/impact). kinds.py says what differs.
    kind = models.CharField(max_length=10, default="batch")
    title = models.CharField(max_length=200, blank=True, default="")
    documents = models.JSONField()  # the chosen policies with the project's other documents, as objects
    policies = models.JSONField(default=list)  # names of the chosen policies
    kubernetes_version = models.CharField(max_length=8, blank=True, default="")
    sources = models.JSONField(default=list)  # [{name, objects}] per uploaded file or pasted text; a cluster's
    # also {cluster: what to read, reading: {kind, read, total} while it is read, kinds: [{kind, read|error}]}
    warnings = models.JSONField(default=list)  # located problems of the input that did not stop the job
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    denied = models.PositiveIntegerField(default=0)  # of the objects done: shown while the job runs
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    edit_token_hash = models.CharField(max_length=128)
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")


class BatchChunk(models.Model):
    QUEUED, RUNNING, DONE, CANCELLED, FAILED = "queued", "running", "done", "cancelled", "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, CANCELLED, FAILED)]

    job = models.ForeignKey(BatchJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()  # the index of its first object in the job
    size = models.PositiveIntegerField()
    inputs = models.JSONField()  # the objects of this chunk
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    dispatched = models.DateTimeField(null=True, blank=True)  # last sent to a worker
    lease_until = models.DateTimeField(null=True, blank=True)  # a running chunk past this is taken to be lost
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    rows = models.JSONField(null=True, blank=True)
    summary = models.JSONField(null=True, blank=True)  # evaluator.batch.Summary of the rows, merged at the end
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="one_chunk_per_index")]
        indexes = [models.Index(fields=["job", "status"])]
