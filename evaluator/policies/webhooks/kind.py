"""Admission webhooks as policy kinds of the admission core: mutating webhooks after the
MutatingAdmissionPolicies, validating webhooks after the ValidatingAdmissionPolicies (the API server's
plugin order). Each reports, per webhook, whether it would be called and what its mocked answer did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import (
    MUTATING,
    UNCHANGED,
    VALIDATING,
    Denial,
    KindOutcome,
    RequestContext,
    Setup,
    register,
)
from evaluator.policies.webhooks.stage import ReinvocationState, WebhookStage


class _Webhooks:
    name = ""
    kind = ""
    key = ""

    def __init__(self) -> None:
        self.stage_runner: WebhookStage | None = None
        self.active = False
        self.idle = False  # see PolicyKind: True when no hook of this kind exists (evaluate answers nothing)

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.stage_runner = WebhookStage(list(setup.documents), setup.cluster.mapper, setup.cluster.namespaces)
        hooks = self.stage_runner.mutating if self.kind == "mutating" else self.stage_runner.validating
        self.active = bool(hooks)
        self.idle = not hooks
        return []

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        if not self.active or self.stage_runner is None:
            return KindOutcome()
        reinvocation = context.reinvocation
        state = reinvocation.values.get(self.name)
        if state is None:
            state = reinvocation.values[self.name] = ReinvocationState()
        try:
            outcome = self.stage_runner.run(
                self.kind, request, context.authorizers, state, reinvoke=reinvocation.is_reinvoke
            )
            if state.should_reinvoke:
                reinvocation.should_reinvoke = True
        except Exception as exc:  # a bug here must cost this kind only
            return KindOutcome(keys={self.key: [{"error": f"internal error: {type(exc).__name__}: {exc}"}]})
        denial = None
        if outcome.denial is not None:
            status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **outcome.denial}
            denial = Denial(
                status=status,
                denials=[
                    {"webhook": d["webhook"], "message": outcome.denial["message"], "reason": outcome.denial["reason"]}
                    for d in outcome.decisions[-1:]
                ],
            )
        keys = {self.key: list(outcome.decisions)}
        return KindOutcome(
            denial=denial,
            warnings=list(outcome.warnings),
            audit_annotations=dict(outcome.audit_annotations),
            object=outcome.object if outcome.patched and denial is None else UNCHANGED,
            changes=[
                {"policy": d["webhook"], "patch": list(d.get("patch") or [])}
                for d in outcome.decisions
                if d.get("result") == "patched" and d.get("mutated") and d.get("round") == int(reinvocation.is_reinvoke)
            ],
            keys=keys,
        )


@register
class MutatingWebhooks(_Webhooks):
    name = "MutatingWebhookConfiguration"
    phase = "MutatingWebhook"
    stage = MUTATING
    order = 200  # the MutatingAdmissionWebhook plugin runs after MutatingAdmissionPolicy
    kind = "mutating"
    key = "mutatingWebhooks"
    reinvocable = True  # reinvocationPolicy: IfNeeded
    result_keys: Mapping[str, Any] = {"mutatingWebhooks": []}


@register
class ValidatingWebhooks(_Webhooks):
    name = "ValidatingWebhookConfiguration"
    stage = VALIDATING
    order = 150  # after ValidatingAdmissionPolicy (100), beside Kyverno's own webhook
    kind = "validating"
    key = "validatingWebhooks"
    result_keys: Mapping[str, Any] = {"validatingWebhooks": []}
