"""Kyverno's DeletingPolicy / NamespacedDeletingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1), offline:
a dry run of the policy's next scheduled run over the project's documents.

Modules: `schedule` (the cron `spec.schedule`, next run), `engine` (compile; one object's verdict: delete,
keep or error, with the reason), `dry_run` (every policy over the documents: `result["deletions"]`),
`kind` (the policy kind inside `simulate`), `cli_test` (`kyverno test` rows flagged `isDeletingPolicy`).
"""

from __future__ import annotations

from . import kind  # noqa: F401  (registers the kind with the admission core)
from .dry_run import DeletingPolicies, is_deleting_policy

__all__ = ["DeletingPolicies", "is_deleting_policy"]
