"""Kyverno ValidatingPolicy / NamespacedValidatingPolicy as a policy kind of the admission core: Kyverno's vpol
and nvpol validating webhooks, after its ClusterPolicy webhook.

Results join `result["kyverno"]` after the ClusterPolicy results (the core concatenates list keys that
several kinds share); a `Deny` failure or error denies as the API server reports a webhook denial, `Warn`
adds warnings (see `admission`). Compile errors and version problems are located document errors.
A ValidatingPolicy with `autogen.validatingAdmissionPolicy.enabled` also gets the VAP and binding Kyverno
generates from it (vap_generation), run as a simulation of its own so `result["kyvernoGeneratedVAPs"]`
compares both verdicts, as for ClusterPolicy `validate.cel` rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import VALIDATING, Denial, KindOutcome, RequestContext, Setup, register
from evaluator.k8s.kinds import KYVERNO_VALIDATING_POLICY

from . import spec as sp, vap_generation
from .stage import VpolStage
from .type_checks import typecheck


@register
class KyvernoValidatingPolicies:
    name = KYVERNO_VALIDATING_POLICY
    stage = VALIDATING
    order = 210  # Kyverno's vpol webhooks, listed after its resource webhook (ClusterPolicy, 200)
    result_keys: Mapping[str, Any] = {"kyverno": [], "kyvernoGeneratedVAPs": []}

    def __init__(self) -> None:
        self.vpol = VpolStage([])
        self.active = False
        self.idle = False
        self._nested: Any = None
        self._generated: list[tuple[str, dict, Any]] | None = None
        self._locate: Any = lambda document, **fields: dict(fields)
        self._type_checks: dict[str, dict] | None = None

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.vpol = VpolStage(setup.documents, setup.cluster.namespaces)
        self.active = bool(self.vpol.entries)
        self.idle = not self.vpol.entries
        self._nested = setup.nested
        self._generated = None
        self._locate = setup.locate
        self._type_checks = None
        return self.vpol.compile_errors(lambda document, **fields: setup.locate(document, **fields))

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        results, status, warnings = self.vpol.run(request, context.trace)
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

    def type_checks(self) -> dict[str, dict]:
        """Each Kubernetes-mode policy's expressions type-checked as a VAP of the same shape, by `Kind/name`
        (type_checks); a policy that does not compile is left to its compile error."""
        if self._type_checks is None:
            from evaluator.admission.error_location import locate_diagnostics

            checks: dict[str, dict] = {}
            for entry in self.vpol.entries:
                if entry.mode != "Kubernetes" or entry.compiled[0].error is not None:
                    continue
                key = f"{entry.document.get('kind')}/{entry.name}"
                try:
                    report = typecheck(entry.document, self.vpol.documents)
                except Exception as exc:  # a checker bug must not hide the decision
                    checks[key] = {"error": f"type checking failed: {type(exc).__name__}: {exc}"}
                    continue
                document = entry.document
                locate_diagnostics(report, lambda document=document, **fields: self._locate(document, **fields))
                checks[key] = report
            self._type_checks = checks
        return self._type_checks

    def generated_vaps(self) -> list[tuple[str, dict, Any]]:
        """(policy name, the generated VAP and binding or the skip reason, a simulation of the VAP or None)
        for each ValidatingPolicy asking for one (autogen.validatingAdmissionPolicy.enabled), built once."""
        if self._generated is None:
            docs = self.vpol.documents
            exceptions = [d for d in docs if sp.is_cel_exception(d)]
            others = [d for d in docs if not sp.is_validating_policy(d) and not sp.is_cel_exception(d)]
            self._generated = []
            for entry in self.vpol.entries:
                if entry.document.get("kind") != "ValidatingPolicy" or not vap_generation.requested(entry.spec):
                    continue
                generated = vap_generation.generate(entry.document, exceptions)
                simulation = None
                if "policy" in generated and self._nested is not None:
                    simulation = self._nested([generated["policy"], generated["binding"], *others])
                self._generated.append((entry.name, generated, simulation))
        return self._generated

    def compare_generated(self, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each generated VAP's verdict on `request`, beside the ValidatingPolicy it came from."""
        out: list[dict[str, Any]] = []
        for name, generated, simulation in self.generated_vaps():
            if simulation is None:
                out.append({"policy": name, "kind": "ValidatingPolicy", "skipped": generated.get("skipped")})
                continue
            verdict = simulation.run(dict(request), trace=False, full=False)
            out.append(
                {
                    "policy": name,
                    "kind": "ValidatingPolicy",
                    "generated": generated,
                    "allowed": verdict["allowed"],
                    "status": verdict["status"],
                    "warnings": verdict["warnings"],
                }
            )
        return out
