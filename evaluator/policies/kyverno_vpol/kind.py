"""Kyverno ValidatingPolicy / NamespacedValidatingPolicy as a policy kind of the admission core: Kyverno's vpol
and nvpol validating webhooks, after its ClusterPolicy webhook.

Results join `result["kyverno"]` after the ClusterPolicy results (the core concatenates list keys that
several kinds share); a `Deny` failure or error denies as the API server reports a webhook denial, `Warn`
adds warnings (see `admission`). Compile errors and version problems are located document errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import VALIDATING, Denial, KindOutcome, RequestContext, Setup, register
from evaluator.k8s.kinds import KYVERNO_VALIDATING_POLICY

from .stage import VpolStage


@register
class KyvernoValidatingPolicies:
    name = KYVERNO_VALIDATING_POLICY
    stage = VALIDATING
    order = 210  # Kyverno's vpol webhooks, listed after its resource webhook (ClusterPolicy, 200)
    result_keys: Mapping[str, Any] = {"kyverno": []}

    def __init__(self) -> None:
        self.vpol = VpolStage([])
        self.active = False
        self.idle = False

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.vpol = VpolStage(setup.documents, setup.cluster.namespaces)
        self.active = bool(self.vpol.entries)
        self.idle = not self.vpol.entries
        return self.vpol.compile_errors(lambda document, **fields: setup.locate(document, **fields))

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        results, status, warnings = self.vpol.run(request)
        denial = None
        if status is not None:
            denial = Denial(
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status},
                ferricel={"accepted": False, "message": status["message"], "code": status["code"]},
            )
        return KindOutcome(denial=denial, warnings=warnings, keys={"kyverno": results})
