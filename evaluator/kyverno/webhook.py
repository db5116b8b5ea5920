"""Kyverno as a validating admission webhook inside `simulate`: its per-rule results and, for an Enforce
failure, the denial the API server reports for a webhook (`admission webhook "..." denied the request: ...`)."""
from __future__ import annotations

from typing import Any, Mapping

from evaluator import kyverno

# Kyverno registers its validating webhook under this name when the policies' failurePolicy is Fail.
WEBHOOK_NAME = "validate.kyverno.svc-fail"
POLICY_KINDS = frozenset({"ClusterPolicy", "Policy"})


def kyverno_policies(documents: list[Mapping[str, Any]]) -> list[dict]:
    return [d for d in documents if d.get("kind") in POLICY_KINDS
            and str(d.get("apiVersion", "")).startswith("kyverno.io/")]


class KyvernoStage:
    """Built once per document set; `run` per request (after mutation, beside the validating policies)."""

    def __init__(self, documents: list[Mapping[str, Any]]):
        self.documents = list(documents)
        self.policies = kyverno_policies(self.documents)

    def run(self, request: Mapping[str, Any]) -> tuple[list[dict], dict[str, Any] | None, list[str]]:
        """(per-policy results, the denial status or None, warnings)."""
        if not self.policies:
            return [], None, []
        results = kyverno.evaluate(self.policies, dict(request), documents=self.documents)
        decision = kyverno.admission_decision(results, dict(request))
        status = None
        if not decision["allowed"]:
            # The webhook answers without a code: the API server reports 400 (webhook errors.ToStatusErr).
            status = {"code": 400, "reason": "",
                      "message": f'admission webhook "{WEBHOOK_NAME}" denied the request: {decision["message"]}'}
        return results, status, list(decision["warnings"])
