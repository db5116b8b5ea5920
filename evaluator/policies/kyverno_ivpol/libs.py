"""Kyverno's image verification library for ImageValidatingPolicy (pkg/cel/libs/imageverify), offline.

`verifyImageSignatures(image, attestors) -> int`, `verifyAttestationSignatures(image, attestation,
attestors) -> int`, `extractPayload(image, attestation) -> dyn` and `getImageData(image) -> dyn`, layered
over the ValidatingPolicy libraries (resource, http, image, globalContext, hash, …). Signatures and
attestations live in a registry: without one, a call that needs them stops the evaluation with
`NeedsRegistry`'s message, recorded on the run so the policy is reported as not evaluated (never a guessed
pass or fail). `getImageData` answers from the image data the test's Context file supplies.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.libs import KYVERNO_REGISTRY, LayeredRegistry

IVPOL_REGISTRY = LayeredRegistry(KYVERNO_REGISTRY)


@dataclass
class RunState:
    """What one policy evaluation's library calls read and record."""

    context: OfflineContext
    registry_needs: list[str] = field(default_factory=list)  # why a call needed the registry, in call order
    verified: set[str] = field(default_factory=set)  # images whose verification was attempted
    images: list[str] = field(default_factory=list)  # the images the policy matched


CURRENT: contextvars.ContextVar[RunState | None] = contextvars.ContextVar("ivpol_run", default=None)


def _state() -> RunState:
    state = CURRENT.get()
    if state is None:  # evaluated outside an ImageValidatingPolicy run (a type check): no data at all
        state = RunState(OfflineContext())
    return state


def _needs_registry(what: str, image: Any) -> CELEvalError:
    reason = f"{what}({image}) needs the image registry (no signature, attestation or image data supplied for it)"
    _state().registry_needs.append(reason)
    return CELEvalError(reason)


def verify_image_signatures(image: Any, _attestors: Any) -> int:
    _state().verified.add(str(image))
    raise _needs_registry("verifyImageSignatures", image)


def verify_attestation_signatures(image: Any, _attestation: Any, _attestors: Any) -> int:
    _state().verified.add(str(image))
    raise _needs_registry("verifyAttestationSignatures", image)


def extract_payload(image: Any, _attestation: Any) -> Any:
    raise _needs_registry("extractPayload", image)


def get_image_data(image: Any) -> Any:
    images = _state().context.images
    if isinstance(image, str) and image in images:
        return images[image]
    raise _needs_registry("getImageData", image)


IVPOL_REGISTRY.add("verifyImageSignatures(string, list(dyn)) -> int", verify_image_signatures, cost=1)
IVPOL_REGISTRY.add(
    "verifyAttestationSignatures(string, string, list(dyn)) -> int", verify_attestation_signatures, cost=1
)
IVPOL_REGISTRY.add("extractPayload(string, string) -> dyn", extract_payload, cost=1)
IVPOL_REGISTRY.add("getImageData(string) -> dyn", get_image_data, cost=1)


class RegistryImages:
    """The `image` library variable's data in an ImageValidatingPolicy: `image.GetMetadata(ref)` reads the
    supplied image data, and where there is none Kyverno would ask the registry (a registry need, not an
    error)."""

    def __init__(self, context: OfflineContext):
        self.context = context

    def image_data(self, image: Any) -> Any:
        if isinstance(image, str) and image in self.context.images:
            return self.context.images[image]
        raise _needs_registry("image.GetMetadata", image)
