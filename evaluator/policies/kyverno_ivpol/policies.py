"""ImageValidatingPolicies of a document set: compiled once with their CEL PolicyExceptions, then run on
each input; one result per policy, shaped like the ValidatingPolicy results (`kind`, `policy`, `rules`,
`notApplicable`, `validationActions`, `trace`) plus the `images` it matched."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.policies.kyverno_vpol import autogen
from evaluator.policies.kyverno_vpol.compiler import exceptions_for
from evaluator.policies.kyverno_vpol.engine import Inputs

from . import spec as sp
from .compiler import CompiledImagePolicy, compile_policy
from .engine import NOT_EVALUATED, ImageResponse, evaluate


@dataclass
class ImagePolicyEntry(sp.Named):
    """A policy and its pod-controller autogen variants (Kyverno's provider adds them as policies of the
    same name, without the exceptions), compiled."""

    document: Mapping[str, Any]
    compiled: CompiledImagePolicy
    variants: tuple[CompiledImagePolicy, ...] = ()

    @property
    def mode(self) -> str:
        return sp.evaluation_mode(sp.spec_of(self.document))


def compile_all(documents: Iterable[Any]) -> list[ImagePolicyEntry]:
    docs = [d for d in documents if isinstance(d, Mapping)]
    exceptions = [d for d in docs if sp.is_cel_exception(d)]
    entries = []
    for doc in docs:
        if not sp.is_image_validating_policy(doc):
            continue
        issue = sp.version_issue(doc)
        if issue is not None and issue[0] == "error":
            continue  # the API server refuses it: reported as a document error, never evaluated
        compiled = compile_policy(doc, exceptions_for(doc, exceptions))
        variants = tuple(compile_policy(doc, [], v["spec"]) for v in autogen.variants(sp.spec_of(doc)))
        entries.append(ImagePolicyEntry(doc, compiled, variants))
    return entries


def respond(
    entry: ImagePolicyEntry, inputs: Inputs, trace: dict[str, list] | None = None, admission: bool = False
) -> ImageResponse | None:
    """The policy's response: the policy's own, or the autogen variant's that applies (the later answer
    stands, as Kyverno keys responses by policy name)."""
    if entry.compiled.error is not None:
        return evaluate(entry.compiled, inputs, trace=trace, admission=admission)
    response = None
    for compiled in (entry.compiled, *entry.variants):
        attempt: dict[str, list] | None = {} if trace is not None else None
        found = evaluate(compiled, inputs, trace=attempt, admission=admission)
        if found is not None:
            response = found
            if trace is not None and attempt is not None:
                trace.clear()
                trace.update(attempt)
    return response


def _action(actions: list[str]) -> str:
    return "Enforce" if "Deny" in actions else "Audit"


def result_of(entry: ImagePolicyEntry, response: ImageResponse | None, trace: dict | None = None) -> dict[str, Any]:
    spec = sp.spec_of(entry.document)
    actions = sp.validation_actions(spec)
    result: dict[str, Any] = {
        "kind": entry.document.get("kind"),
        "apiVersion": entry.document.get("apiVersion"),
        "policy": entry.name,
        "namespace": sp.namespace_of(entry.document),
        "validationActions": actions,
        "mode": entry.mode,
        "failurePolicy": sp.failure_policy(spec),
        "rules": [],
        "notApplicable": [],
    }
    if response is None:
        result["notApplicable"].append(entry.name)
        return result
    rule: dict[str, Any] = {
        "rule": response.rule,
        "result": response.status,
        "message": response.message,
        "action": _action(actions),
    }
    if response.properties:
        rule["properties"] = dict(response.properties)
    if response.exceptions:
        rule["exceptions"] = list(response.exceptions)
    result["rules"].append(rule)
    result["images"] = list(response.images)
    if response.status == NOT_EVALUATED:
        result["note"] = (
            "not evaluated offline: this needs the image registry (signatures, attestations or image data the "
            "documents do not supply), so no pass or fail is claimed"
        )
    if trace and any(trace.values()):
        result["trace"] = trace
    return result


def _runs_in_admission(entry: ImagePolicyEntry, inputs: Inputs) -> bool:
    if entry.mode != "Kubernetes" or not sp.admission_enabled(sp.spec_of(entry.document)):
        return False
    if entry.document.get("kind") == "NamespacedImageValidatingPolicy":
        return ((inputs.match_request or {}).get("namespace") or "") == sp.namespace_of(entry.document)
    return True


def evaluate_request(entries: list[ImagePolicyEntry], inputs: Inputs, *, traced: bool = True) -> list[dict[str, Any]]:
    """Every Kubernetes-mode policy on one admission input (after Kyverno's mutateDigest, see `evaluate`)."""
    results = []
    for entry in entries:
        if not _runs_in_admission(entry, inputs):
            continue
        trace: dict[str, list] | None = {} if traced else None
        try:
            response = respond(entry, inputs, trace, admission=True)
        except Exception as err:  # a defect must still come out as data about this policy
            response = ImageResponse("", "error", f"internal error: {type(err).__name__}: {err}")
        results.append(result_of(entry, response, trace))
    return results
