"""Evaluate one compiled ImageValidatingPolicy on one input, as Kyverno's ivpol engine does
(pkg/image/verification/evaluator/policy.go Evaluate, pkg/cel/policies/ivpol/engine).

Order: matchConstraints (no match -> no response), matchConditions (false -> no response; errors with
failurePolicy Fail -> `failed to evaluate policy: ...`), CEL PolicyExceptions (any match -> skip), the
images (default extractors for the request's resource, then `spec.images`) filtered by
matchImageReferences, the digest check (verifyDigest: a matched image without a digest fails), then the
validations in order (first false -> fail with its message, an evaluation error -> `failed to evaluate
policy: ...`, a non-bool -> error), and last `required`: a passing policy whose matched images no policy
tried to verify fails (`image X is not verified: ...`). A check that needs the image registry (signature
or attestation verification, image data the test does not supply) makes the result NOT_EVALUATED with
the reason instead of a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.policies.kyverno_vpol import engine as vpol_engine
from evaluator.policies.kyverno_vpol.engine import EvalFailure, Inputs, LazyVariables, run_program
from evaluator.policies.kyverno_vpol.image_ref import ImageRefError, parse_reference
from evaluator.policies.kyverno_vpol.libs import ImageDataContext, bindings

from . import spec as sp
from .compiler import CompiledImagePolicy, default_extractor
from .libs import CURRENT, RegistryImages, RunState

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"
NOT_EVALUATED = "not evaluated"


@dataclass
class ImageResponse:
    rule: str
    status: str
    message: str
    properties: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


class _NeedsRegistry(Exception):
    pass


def _policy_error(message: str) -> ImageResponse:
    return ImageResponse("evaluation", ERROR, f"failed to evaluate policy: {message}")


def _extract(policy: CompiledImagePolicy, inputs: Inputs, activation: Mapping[str, Any]) -> dict[str, list[str]]:
    resource = (inputs.match_request or {}).get("resource") or {}
    extractors = (
        []
        if inputs.payload
        else default_extractor(str(resource.get("group") or ""), str(resource.get("resource") or ""))
    )
    images: dict[str, list[str]] = {}
    for name, program in [*extractors, *policy.extractors]:
        value = run_program(program, activation)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise EvalFailure(vpol_engine.conversion_error(value, "[]string"))
        images[name] = list(value)
    return images


def _matches_image(policy: CompiledImagePolicy, image: str) -> bool:
    if not policy.image_matches:
        return True
    for match in policy.image_matches:
        if match.glob is not None:
            if match.glob.fullmatch(image):
                return True
            continue
        value = run_program(match.program, {"ref": image})
        if value is True:
            return True
    return False


def _digest_failure(name: str, images: list[str]) -> ImageResponse | None:
    for image in images:
        try:
            ref = parse_reference(image)
        except ImageRefError as err:
            raise EvalFailure(f"failed to parse image reference {image}: {err}") from None
        if not ref.digest:
            return ImageResponse(name, FAIL, f"image {image} does not have a digest", images=images)
    return None


def evaluate(
    policy: CompiledImagePolicy, inputs: Inputs, *, trace: dict[str, list] | None = None, admission: bool = False
) -> ImageResponse | None:
    """The policy's response on one input; None when it does not apply (constraints, conditions).
    `admission`: on a cluster, Kyverno's ivpol mutating webhook first replaces each matched tag by its digest
    (mutateDigest, on by default), which needs the registry; `kyverno test` runs the validation alone."""
    if policy.error is not None:
        return ImageResponse("evaluation", ERROR, policy.error)
    if trace is not None:
        for key in ("matchConditions", "variables", "validations", "messageExpressions", "auditAnnotations"):
            trace.setdefault(key, [])
    if not inputs.payload:
        matched, error = vpol_engine.match_constraints(policy, inputs)  # type: ignore[arg-type]
        if error is not None:
            return ImageResponse("match", ERROR, f"failed to execute matching: {error}")
        if not matched:
            return None
    state = RunState(inputs.context)
    token = CURRENT.set(state)
    try:
        return _evaluate(policy, inputs, state, trace, admission)
    except _NeedsRegistry:
        reasons = "; ".join(dict.fromkeys(state.registry_needs))
        return ImageResponse(policy.name, NOT_EVALUATED, f"not evaluated: {reasons}", images=state.images)
    finally:
        CURRENT.reset(token)


def _activation(policy: CompiledImagePolicy, inputs: Inputs) -> dict[str, Any]:
    if inputs.payload:
        activation: dict[str, Any] = {"object": inputs.object}
    else:
        activation = {
            "object": inputs.object,
            "oldObject": inputs.old_object,
            "request": inputs.request,
            "namespaceObject": inputs.namespace_object,
        }
    activation.update(bindings(inputs.context, sp.namespace_of(policy.document)))
    activation["image"] = ImageDataContext(RegistryImages(inputs.context))  # type: ignore[arg-type]
    activation["variables"] = {}
    return activation


def _evaluate(
    policy: CompiledImagePolicy, inputs: Inputs, state: RunState, trace: dict[str, list] | None, admission: bool
) -> ImageResponse | None:
    activation = _activation(policy, inputs)
    rows = trace["matchConditions"] if trace is not None else None
    names = tuple(n for n, _ in policy.match_conditions)
    try:
        conditions = tuple(p for _, p in policy.match_conditions)
        if not vpol_engine.matches(policy, conditions, activation, rows, names):  # type: ignore[arg-type]
            return None
        matched = [e.document for e in policy.exceptions if vpol_engine.matches(policy, e.conditions, activation)]  # type: ignore[arg-type]
        if matched:
            keys = [vpol_engine.exception_key(e) for e in matched]
            message = "rule is skipped due to policy exception: " + ", ".join(keys)
            return ImageResponse("exception", SKIP, message, exceptions=keys)
        variables = LazyVariables(policy.variables, activation)
        if trace is not None:
            variables.trace = trace["variables"]
        activation["variables"] = variables
        found = _extract(policy, inputs, activation)
        images: dict[str, list[str]] = {}
        listed: list[str] = []
        for category, refs in found.items():
            images[category] = [r for r in refs if _matches_image(policy, r)]
            listed += images[category]
        state.images = listed
        if admission and sp.mutate_digest(policy.spec):
            for image in listed:
                if "@" not in image:
                    state.registry_needs.append(
                        f"mutateDigest: Kyverno's ivpol mutating webhook would resolve {image} to its digest, "
                        "which needs the image registry"
                    )
                    raise _NeedsRegistry()
        if sp.verify_digest(policy.spec):
            failure = _digest_failure(policy.name, listed)
            if failure is not None:
                return failure
        activation.update(images=images, attestations=dict(policy.attestations), attestors=dict(policy.attestors))
        response = _validate(policy, activation, trace, state)
    except EvalFailure as err:
        if state.registry_needs:
            raise _NeedsRegistry() from None
        return _policy_error(err.message)
    response.images = listed
    if response.status == PASS and sp.required(policy.spec):
        unverified = [i for i in listed if i not in state.verified]
        if unverified:
            message = (
                f"image {unverified[0]} is not verified: no policy performed a signature or attestation check on it"
            )
            return ImageResponse(policy.name, FAIL, message, response.properties, images=listed)
    return response


def _validate(
    policy: CompiledImagePolicy, activation: dict[str, Any], trace: dict[str, list] | None, state: RunState
) -> ImageResponse:
    rows = trace["validations"] if trace is not None else None
    messages = trace["messageExpressions"] if trace is not None else None
    annotation_rows = trace["auditAnnotations"] if trace is not None else None
    for validation in policy.validations:
        value = run_program(validation.program, activation, rows, index=validation.index)
        if not isinstance(value, bool):
            if state.registry_needs:
                raise _NeedsRegistry()
            return ImageResponse(policy.name, ERROR, f"error: {vpol_engine.conversion_error(value, 'bool')}")
        if value:
            continue
        message = validation.message
        if validation.message_expression is not None:
            try:
                out = run_program(validation.message_expression, activation, messages, index=validation.index)
                message = (
                    out
                    if isinstance(out, str)
                    else "failed to convert message expression to string: "
                    + vpol_engine.conversion_error(out, "string")
                )
            except EvalFailure as err:
                message = f"failed to evaluate message expression: {err.message}"
        if not message:
            message = f"CEL expression validation failed at index {validation.index}"
        annotations = vpol_engine.audit_annotations(policy, activation, annotation_rows)  # type: ignore[arg-type]
        return ImageResponse(policy.name, FAIL, message, annotations)
    annotations = vpol_engine.audit_annotations(policy, activation, annotation_rows)  # type: ignore[arg-type]
    return ImageResponse(policy.name, PASS, "success", annotations)
