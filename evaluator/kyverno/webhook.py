"""Kyverno as a validating admission webhook inside `simulate`: its per-rule results and, for an Enforce
failure, the denial the API server reports for a webhook (`admission webhook "..." denied the request: ...`).

For a policy whose rule is `validate.cel`, the ValidatingAdmissionPolicy Kyverno would generate from it is
simulated on the same request too, so both verdicts can be compared (`result["kyvernoGeneratedVAPs"]`)."""
from __future__ import annotations

from typing import Any, Mapping

from evaluator import kyverno
from evaluator.kyverno_vpol import VpolStage

# Kyverno registers its validating webhook under this name when the policies' failurePolicy is Fail.
WEBHOOK_NAME = "validate.kyverno.svc-fail"
POLICY_KINDS = frozenset({"ClusterPolicy", "Policy"})


def kyverno_policies(documents: list[Mapping[str, Any]]) -> list[dict]:
    return [d for d in documents if d.get("kind") in POLICY_KINDS
            and str(d.get("apiVersion", "")).startswith("kyverno.io/")]


ADMISSION_KINDS = frozenset({"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                             "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})


def _has_cel_rule(policy: Mapping[str, Any]) -> bool:
    return any(((r.get("validate") or {}).get("cel")) for r in (policy.get("spec") or {}).get("rules") or [])


class KyvernoStage:
    """Built once per document set; `run` per request (after mutation, beside the validating policies)."""

    def __init__(self, documents: list[Mapping[str, Any]]):
        self.documents = list(documents)
        self.policies = kyverno_policies(self.documents)
        self.vpol = VpolStage(self.documents)  # ValidatingPolicies: their own webhooks (evaluator.kyverno_vpol)
        self._generated: list[tuple[str, dict, Any]] | None = None

    def generated_vaps(self) -> list[tuple[str, dict, Any]]:
        """(policy name, generate_vap's output, a Simulation of the generated VAP or None), built once."""
        if self._generated is None:
            from evaluator.simulation import Simulation  # simulate imports this module

            others = [d for d in self.documents if d.get("kind") not in ADMISSION_KINDS | POLICY_KINDS]
            self._generated = []
            for policy in self.policies:
                if not _has_cel_rule(policy):
                    continue
                generated = kyverno.generate_vap(policy)
                simulation = None
                if "policy" in generated:
                    simulation = Simulation([generated["policy"], generated["binding"], *others])
                self._generated.append(((policy.get("metadata") or {}).get("name", ""), generated, simulation))
        return self._generated

    def compare_generated(self, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each generated VAP's verdict on `request`, beside the policy it came from."""
        out = []
        for name, generated, simulation in self.generated_vaps():
            if simulation is None:
                out.append({"policy": name, "skipped": generated.get("skipped")})
                continue
            verdict = simulation.run(dict(request), trace=False, full=False)
            out.append({"policy": name, "generated": generated, "allowed": verdict["allowed"],
                        "status": verdict["status"], "warnings": verdict["warnings"]})
        return out

    def run(self, request: Mapping[str, Any]) -> tuple[list[dict], dict[str, Any] | None, list[str]]:
        """(per-policy results, the denial status or None, warnings); ValidatingPolicy results follow."""
        results, status, warnings = self._run_policies(request)
        vpol_results, vpol_status, vpol_warnings = self.vpol.run(request)
        return results + vpol_results, status or vpol_status, warnings + vpol_warnings

    def _run_policies(self, request: Mapping[str, Any]) -> tuple[list[dict], dict[str, Any] | None, list[str]]:
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
