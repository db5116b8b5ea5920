"""Stored playground state: projects with their YAML documents and sample requests, and immutable snapshots.

Texts are kept exactly as typed (even broken YAML); the engine reads them at evaluation time.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Project(models.Model):
    """A named set of documents and sample requests; writes need the edit token (stored hashed)."""

    id = models.CharField(primary_key=True, max_length=64)
    title = models.CharField(max_length=200, blank=True, default="")
    description = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    version = models.PositiveBigIntegerField(default=1)
    edit_token_hash = models.CharField(max_length=128, blank=True, default="")
    forked_from_snapshot = models.ForeignKey(
        "Snapshot", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks"
    )
    is_example = models.BooleanField(default=False)
    # The Kubernetes release the project simulates ("1.31"); blank follows the newest release.
    kubernetes_version = models.CharField(max_length=8, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.id} ({self.title})"


class ProjectItem(models.Model):
    """What a project's documents and sample requests share: a named, ordered, co-edited text."""

    name = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True, default="")
    updated = models.DateTimeField(auto_now=True)
    version = models.PositiveBigIntegerField(default=1)
    # How many changes the text's co-editing history holds (playground/collab): clients send changes on top of it.
    collab_version = models.PositiveBigIntegerField(default=0)
    # Where a document loaded from a cluster came from (services/cluster_service.py): cluster, apiVersion, kind,
    # resource, namespace, name, resourceVersion, loadedAt. Null for what was typed or imported.
    origin = models.JSONField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["position", "id"]


class Document(ProjectItem):
    """One YAML document text (a policy, a binding, params, namespaces, RBAC objects ...)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")

    class Meta(ProjectItem.Meta):
        pass


class SampleRequest(ProjectItem):
    """A sample admission request text with an optional expected outcome (checked like `kyverno test`)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="requests")
    expected = models.JSONField(null=True, blank=True)

    class Meta(ProjectItem.Meta):
        pass


class TextChange(models.Model):
    """One accepted change of a document's or request's text, numbered: the co-editing history that lets a
    client which missed changes catch up and rebase what it typed meanwhile."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="text_changes")
    target = models.CharField(max_length=8)  # "document" or "request"
    item_id = models.BigIntegerField()
    version = models.PositiveBigIntegerField()  # the item's collab_version after this change
    changes = models.JSONField()
    client_id = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["target", "item_id", "version"], name="one_change_per_version")]


class Snapshot(models.Model):
    """An immutable, content-addressed copy of a project, pinned to the engine version."""

    id = models.CharField(primary_key=True, max_length=16)
    content = models.JSONField()
    engine_version = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)


class Presence(models.Model):
    """One open WebSocket on a project: the viewer count, shared by every server process. ``seen`` is renewed
    by the connection's heartbeat, so the row of a process that crashed stops counting by itself."""

    project_id = models.CharField(max_length=64, db_index=True)
    channel_name = models.CharField(max_length=200, unique=True)
    connected = models.DateTimeField(auto_now_add=True)
    seen = models.DateTimeField(default=timezone.now, db_index=True)
