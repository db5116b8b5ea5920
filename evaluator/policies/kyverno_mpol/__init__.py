"""Kyverno's CEL mutation policy type, MutatingPolicy / NamespacedMutatingPolicy (policies.kyverno.io v1alpha1,
v1beta1, v1), offline.

Built on the ValidatingPolicy package (Kyverno's CEL libraries, offline context, inputs, exceptions,
pod-controller autogen) and on the MutatingAdmissionPolicy engine (ApplyConfiguration and JSONPatch patchers,
object schemas, diffs). Modules: `spec` (kinds, defaults), `autogen` (pod-controller variants), `compiler`,
`engine` (one evaluation), `policies` (a compiled set run in order), `stage` (one request, the webhook's
verdict), `kind` (the admission core's kind), `cli_test` (`kyverno test` rows).
"""

from __future__ import annotations

from . import kind  # noqa: F401  (registers the kind with the admission core)
from .policies import compile_all, run_all
from .spec import is_mutating_policy
from .stage import MpolStage

__all__ = ["MpolStage", "compile_all", "run_all", "is_mutating_policy"]
