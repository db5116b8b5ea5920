"""Kyverno ImageValidatingPolicy / NamespacedImageValidatingPolicy (policies.kyverno.io), offline.

`compile_all(documents)` compiles each policy with the CEL PolicyExceptions naming it; `evaluate_request`
runs them on an admission input (`evaluator.policies.kyverno_vpol.inputs`). Modules: `spec` (kinds,
defaults), `globs` (matchImageReferences globs), `libs` (verifyImageSignatures, verifyAttestationSignatures,
extractPayload, getImageData over the ValidatingPolicy libraries), `compiler`, `engine` (Kyverno's
evaluation order; NOT_EVALUATED when a check needs the image registry), `policies` (results), `kind` (the
admission stage), `cli_test` (kyverno-test rows).
"""

from __future__ import annotations

from .policies import compile_all, evaluate_request
from .spec import is_image_validating_policy
from . import kind  # noqa: E402,F401  (registers the kind with the admission core)

__all__ = ["compile_all", "evaluate_request", "is_image_validating_policy"]
