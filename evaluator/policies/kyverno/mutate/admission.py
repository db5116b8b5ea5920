"""Kyverno's mutate rules as a policy kind of the admission core: Kyverno's mutating webhook.

It runs in the mutating stage after MutatingAdmissionPolicy and the other mutating webhooks' checks (a
webhook, order 250), so the validating kinds (Kyverno's validate rules among them) see the object it patched,
as in a cluster. Its description of what it did goes to `result["kyvernoMutation"]` (`mutate()`'s output:
`patchedObject`, `patch`, `patchBase64`, `diff`, `mutations` per rule, `errors`, `policies`). A rule's error
does not deny the request: it is reported, and the other rules still run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import MUTATING, UNCHANGED, KindOutcome, RequestContext, Setup, register
from evaluator.policies.mutating.diff import encode_patch, json_patch_between

from ..webhook import kyverno_policies
from . import has_mutate_rules, mutate

KIND_NAME = "ClusterPolicy mutate rules"


@register
class KyvernoMutations:
    name = KIND_NAME
    stage = MUTATING
    order = 250  # a mutating webhook, after MutatingAdmissionPolicy (100) and the webhooks' own checks (200)
    result_keys: Mapping[str, Any] = {"kyvernoMutation": None}

    def __init__(self) -> None:
        self.documents: list[Mapping[str, Any]] = []
        self.policies: list[dict] = []
        self.active = False
        self.idle = True

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.documents = list(setup.documents)
        self.policies = [p for p in kyverno_policies(self.documents) if has_mutate_rules(p)]
        self.active = bool(self.policies)
        self.idle = not self.policies
        return []

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        if not self.policies or request.get("object") is None:
            return KindOutcome(keys={"kyvernoMutation": None})
        output = mutate(self.policies, dict(request), documents=[dict(d) for d in self.documents])
        patched = output["patchedObject"]
        changed = bool(output["patch"])
        original = (context.original or {}).get("object")
        response_patch = json_patch_between(original, patched) if changed else []
        return KindOutcome(
            object=patched if changed else UNCHANGED,
            patch=encode_patch(response_patch) if response_patch else None,
            keys={"kyvernoMutation": output},
        )
