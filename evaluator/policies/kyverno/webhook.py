"""Kyverno ClusterPolicy/Policy as a policy kind of the admission core: a validating admission webhook.

Its per-rule results go to `result["kyverno"]`; an Enforce failure denies as the API server reports a webhook
denial (`admission webhook "..." denied the request: ...`). For a policy whose rule is `validate.cel`, the
ValidatingAdmissionPolicy Kyverno would generate from it is simulated on the same request too (as a document
set of its own, through `Setup.nested`), so both verdicts can be compared (`result["kyvernoGeneratedVAPs"]`).
A generate rule's error carries its place in the policy (`location`, as a mutate rule's error does).
"""

from __future__ import annotations

from typing import Any, Mapping

from evaluator.admission.policy_kind import VALIDATING, Denial, KindOutcome, RequestContext, Setup, register
from evaluator.k8s.namespaces import Namespaces
from evaluator.k8s.kinds import ADMISSION_KINDS, KYVERNO_CLUSTER_POLICY, KYVERNO_GROUP, KYVERNO_POLICY_KINDS
from evaluator.policies import kyverno
from evaluator.policies.kyverno import cel_diagnostics
from evaluator.policies.kyverno.rule_location import locate_generate_errors

# Kyverno registers its validating webhook under this name when the policies' failurePolicy is Fail.
WEBHOOK_NAME = "validate.kyverno.svc-fail"


def kyverno_policies(documents: list[Mapping[str, Any]]) -> list[dict]:
    return [
        d
        for d in documents
        if d.get("kind") in KYVERNO_POLICY_KINDS and str(d.get("apiVersion", "")).startswith(KYVERNO_GROUP + "/")
    ]


def _has_cel_rule(policy: Mapping[str, Any]) -> bool:
    spec = policy.get("spec")
    rules = spec.get("rules") if isinstance(spec, Mapping) else None
    return isinstance(rules, list) and any(
        isinstance(r, Mapping) and isinstance(r.get("validate"), Mapping) and r["validate"].get("cel") for r in rules
    )


@register
class KyvernoPolicies:
    """Built once per document set; `evaluate` per request (after mutation, beside the validating policies)."""

    name = KYVERNO_CLUSTER_POLICY
    stage = VALIDATING
    order = 200  # a webhook: after the ValidatingAdmissionPolicy plugin
    result_keys: Mapping[str, Any] = {"kyverno": [], "kyvernoGeneratedVAPs": []}

    def __init__(self) -> None:
        self.documents: list[Mapping[str, Any]] = []
        self.policies: list[dict] = []
        self.active = False
        self.idle = False
        self._nested: Any = None
        self._namespaces: Namespaces | None = None
        self._locate: Any = lambda document, **fields: dict(fields)
        self._type_checks: dict[str, dict] | None = None
        self._generated: list[tuple[str, dict, Any]] | None = None

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.documents = list(setup.documents)
        self.policies = kyverno_policies(self.documents)
        self.active = bool(self.policies)
        self.idle = not self.policies  # no results and no generated VAP to compare
        self._nested = setup.nested
        self._namespaces = setup.cluster.namespaces
        self._locate = setup.locate
        return cel_diagnostics.located_errors(self.policies, setup.locate)

    def type_checks(self) -> dict[str, dict]:
        """The CEL of each policy's rules type-checked as the VAP Kyverno runs it, by `Kind/name`."""
        if self._type_checks is None:
            self._type_checks = cel_diagnostics.type_checks(self.policies, self.documents, self._locate)
        return self._type_checks

    def generated_vaps(self) -> list[tuple[str, dict, Any]]:
        """(policy name, generate_vap's output, a simulation of the generated VAP or None), built once."""
        if self._generated is None:
            others = [d for d in self.documents if d.get("kind") not in ADMISSION_KINDS | KYVERNO_POLICY_KINDS]
            self._generated = []
            for policy in self.policies:
                if not _has_cel_rule(policy):
                    continue
                generated = kyverno.generate_vap(policy)
                simulation = None
                if "policy" in generated and self._nested is not None:
                    simulation = self._nested([generated["policy"], generated["binding"], *others])
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
            out.append(
                {
                    "policy": name,
                    "generated": generated,
                    "allowed": verdict["allowed"],
                    "status": verdict["status"],
                    "warnings": verdict["warnings"],
                }
            )
        return out

    def run(self, request: Mapping[str, Any]) -> tuple[list[dict], dict[str, Any] | None, list[str]]:
        """(per-policy results, the denial status or None, warnings)."""
        if not self.policies:
            return [], None, []
        values = {"namespaces": self._namespaces} if self._namespaces is not None else None
        results = kyverno.evaluate(self.policies, dict(request), documents=self.documents, values=values)
        decision = kyverno.admission_decision(results, dict(request))
        status = None
        if not decision["allowed"]:
            # The webhook answers without a code: the API server reports 400 (webhook errors.ToStatusErr).
            status = {
                "code": 400,
                "reason": "",
                "message": f'admission webhook "{WEBHOOK_NAME}" denied the request: {decision["message"]}',
            }
        return results, status, list(decision["warnings"])

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        results, status, warnings = self.run(request)
        locate_generate_errors(results, self.policies, self._locate)
        denial = None
        if status is not None:
            denial = Denial(
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status},
                ferricel={"accepted": False, "message": status["message"], "code": status["code"]},
            )
        return KindOutcome(
            denial=denial,
            warnings=warnings,
            keys={"kyverno": results, "kyvernoGeneratedVAPs": self.compare_generated(request)},
        )
