"""Kyverno's GeneratingPolicy / NamespacedGeneratingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1),
offline: what the policy generates for an admission request.

Modules: `template` (generate[].template with `(( ))` placeholders), `generator` (the `generator` CEL
library: generator.Apply), `engine` (compile; run on one request), `kind` (the policy kind inside `simulate`:
its results join `result["kyverno"]` with a `generate` list shaped like ClusterPolicy generate rules'),
`cli_test` (`kyverno test` rows flagged `isGeneratingPolicy`).
"""

from __future__ import annotations

from .engine import is_generating_policy

__all__ = ["is_generating_policy"]
from . import kind  # noqa: E402,F401  (registers the kind with the admission core)
