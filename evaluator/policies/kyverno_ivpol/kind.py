"""ImageValidatingPolicy / NamespacedImageValidatingPolicy as a policy kind of the admission core: Kyverno's
ivpol validating webhook (ivpol.validate.kyverno.svc), after its vpol webhooks.

Results join `result["kyverno"]`; a `Deny` failure or error denies with Kyverno's webhook texts
(`Policy <name> failed: <message>`), `Warn` adds them as warnings; a result that needs the image registry
is `not evaluated` and neither denies nor warns. Compile errors (an invalid glob or CEL expression) and
version problems are located document errors; the other policies are still evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.k8s.namespaces import Namespaces
from evaluator.admission.policy_kind import VALIDATING, Denial, KindOutcome, RequestContext, Setup, register
from evaluator.policies.kyverno_vpol import admission
from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs
from evaluator.policies.kyverno_vpol.stage import offline_context

from . import spec as sp
from .policies import ImagePolicyEntry, compile_all, evaluate_request


@register
class KyvernoImageValidatingPolicies:
    name = "ImageValidatingPolicy"
    stage = VALIDATING
    order = 215  # Kyverno's ivpol webhook, after its vpol webhooks (210), before its gpol webhook (220)
    result_keys: Mapping[str, Any] = {"kyverno": []}

    def __init__(self) -> None:
        self.entries: list[ImagePolicyEntry] = []
        self.context = OfflineContext()
        self.namespaces = Namespaces()
        self.active = False
        self.idle = True

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        docs = [d for d in setup.documents if isinstance(d, Mapping)]
        self.entries = compile_all(docs)
        self.active = bool(self.entries)
        self.idle = not self.entries
        self.context = offline_context(docs) if self.entries else OfflineContext()
        self.namespaces = setup.cluster.namespaces
        errors = []
        for doc in docs:
            if sp.is_image_validating_policy(doc):
                issue = sp.version_issue(doc)
                if issue is not None:
                    errors.append(setup.locate(doc, severity=issue[0], path="apiVersion", message=issue[1]))
        for entry in self.entries:
            for error in entry.compiled.errors:
                errors.append(setup.locate(entry.document, severity="error", **error))
        return errors

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        if not self.entries:
            return KindOutcome(keys={"kyverno": []})
        namespace = str(request.get("namespace") or "")
        ns_obj = self.namespaces(namespace)
        inputs = kubernetes_inputs(request, context=self.context, namespaces=self.namespaces, namespace_object=ns_obj)
        results = evaluate_request(self.entries, inputs, traced=context.trace)
        verdict = admission.decision(results, request)
        denial = None
        status = verdict["status"]
        if status is not None:
            denial = Denial(
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status},
                ferricel={"accepted": False, "message": status["message"], "code": status["code"]},
            )
        return KindOutcome(denial=denial, warnings=verdict["warnings"], keys={"kyverno": results})
