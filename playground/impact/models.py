"""A project's version history. The server keeps a project's full past content only as snapshots (immutable,
content-addressed, shared by every project with the same content); the texts' co-editing history keeps change
sets without the deleted text, so it cannot rebuild an old version. This links each snapshot taken of a project
to it, numbered in order, so "compare with version N" names a complete, unchangeable policy set."""

from __future__ import annotations

from django.db import models


class ProjectVersion(models.Model):
    project_id = models.CharField(max_length=64, db_index=True)
    number = models.PositiveIntegerField()  # 1, 2, … per project, in the order the snapshots were taken
    snapshot = models.ForeignKey("playground.Snapshot", on_delete=models.CASCADE, related_name="versions")
    project_version = models.PositiveBigIntegerField(default=0)  # the project's save counter at the time
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project_id", "number"]
        constraints = [models.UniqueConstraint(fields=["project_id", "number"], name="one_version_per_number")]
