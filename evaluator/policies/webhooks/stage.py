"""Webhooks in the admission chain, with their answers mocked in the project.

A `WebhookMock` document (apiVersion `playground.admission/v1alpha1`) names a webhook and what it
answers: `allow` (the default for a called webhook without a mock), `deny` (with `message`, `code`,
`reason`), `patch` (a JSON patch, mutating webhooks only) or `timeout`. Answers are turned into the API
server's results: `admission webhook "<name>" denied the request: <message>`, failures
(`failed calling webhook ...`) under failurePolicy, mutations applied in order with the audit
annotations the API server records.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission.response import forbidden_text
from evaluator.policies.mutating.diff import semantic_equal
from evaluator.policies.mutating.jsonpatch import PatchError, apply_patch
from evaluator.policies.webhooks.config import webhooks_of
from evaluator.policies.webhooks.matching import should_call

MOCK_KIND = "WebhookMock"


@dataclass
class ReinvocationState:
    """webhookReinvokeContext: IfNeeded webhooks called since the last change, those to call again in the
    second round, and the object as the webhooks last left it."""

    previously_invoked: list[str] = field(default_factory=list)
    to_reinvoke: list[str] = field(default_factory=list)
    should_reinvoke: bool = False  # a webhook changed the object: the API server reinvokes the mutating chain
    last_output: Any = None
    decisions: list[dict] = field(default_factory=list)  # the records of both rounds
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)

    def require_reinvoking_previously_invoked(self) -> None:
        for uid in self.previously_invoked:
            if uid not in self.to_reinvoke:
                self.to_reinvoke.append(uid)
        self.previously_invoked = []


@dataclass
class WebhookOutcome:
    decisions: list[dict] = field(default_factory=list)
    denial: dict | None = None  # {code, reason, message}
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    object: Any = None
    patched: bool = False


def _mocks(documents: list[Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for doc in documents:
        if isinstance(doc, Mapping) and doc.get("kind") == MOCK_KIND:
            spec = doc.get("spec") if isinstance(doc.get("spec"), Mapping) else {}
            name = str(spec.get("webhook") or (doc.get("metadata") or {}).get("name") or "")
            out.setdefault(name, spec)
    return out


def _denied(name: str, mock: Mapping[str, Any]) -> dict[str, Any]:
    """webhookerrors.ToStatusErr: at least 400, message prefixed with who denied it."""
    raw_code = mock.get("code")
    code = max(raw_code, 400) if isinstance(raw_code, int) else 400
    denied_by = f'admission webhook "{name}" denied the request'
    if mock.get("message"):
        message = f"{denied_by}: {mock['message']}"
    elif mock.get("reason"):
        message = f"{denied_by}: {mock['reason']}"
    else:
        message = f"{denied_by} without explanation"
    return {"code": code, "reason": str(mock.get("reason") or ""), "message": message}


class WebhookStage:
    def __init__(self, documents: list[Any], mapper: Any = None, namespaces: Any = None):
        self.validating = webhooks_of(documents, "validating")
        self.mutating = webhooks_of(documents, "mutating")
        self.mocks = _mocks(documents)
        self.mapper = mapper
        self.namespaces = namespaces

    def __bool__(self) -> bool:
        return bool(self.validating or self.mutating)

    def run(
        self,
        kind: str,
        request: Mapping[str, Any],
        authorizers: Callable | None = None,
        state: ReinvocationState | None = None,
        reinvoke: bool = False,
    ) -> WebhookOutcome:
        """One call of the webhook plugin (mutatingDispatcher.Dispatch). Mutating webhooks keep `state`
        between the first call and the reinvocation (`reinvoke`): then only the IfNeeded webhooks called
        before are called again, and only if the object changed after them."""
        hooks = self.mutating if kind == "mutating" else self.validating
        state = state if state is not None else ReinvocationState()
        outcome = WebhookOutcome(
            decisions=state.decisions,
            warnings=state.warnings,
            audit_annotations=state.audit_annotations,
            object=request.get("object"),
        )
        if reinvoke and not semantic_equal(state.last_output, request.get("object")):
            state.require_reinvoking_previously_invoked()
        try:
            self._call_hooks(hooks, kind, request, authorizers, state, reinvoke, outcome)
        finally:
            state.last_output = copy.deepcopy(outcome.object)
        return outcome

    def _call_hooks(
        self,
        hooks: list[Any],
        kind: str,
        request: Mapping[str, Any],
        authorizers: Callable | None,
        state: ReinvocationState,
        reinvoke: bool,
        outcome: WebhookOutcome,
    ) -> None:
        current = dict(request)
        round_number = 1 if reinvoke else 0
        for position, hook in enumerate(hooks):
            decision = should_call(hook, current, self.namespaces, self.mapper, authorizers)
            if reinvoke and (not decision.called or hook.uid not in state.to_reinvoke) and decision.error is None:
                continue  # a webhook is never called for the first time on reinvocation
            record = decision.to_dict()
            record["round"] = round_number
            if kind == "mutating":
                record["reinvocationPolicy"] = hook.reinvocation_policy
            outcome.decisions.append(record)
            if decision.error is not None:
                if decision.error_code == 403:
                    message = forbidden_text(current, decision.error)
                    outcome.denial = {"code": 403, "reason": "Forbidden", "message": message}
                else:
                    outcome.denial = {
                        "code": decision.error_code or 500,
                        "reason": "InternalError",
                        "message": f"Internal error occurred: {decision.error}",
                    }
                record["result"] = "refused"
                return
            if not decision.called:
                record["result"] = "skipped"
                continue
            before = current.get("object")
            stop = self._answer(hook, current, record, outcome, kind, round_number, position)
            if kind == "mutating":
                if not semantic_equal(before, outcome.object):
                    state.require_reinvoking_previously_invoked()
                    state.should_reinvoke = True
                if hook.reinvocation_policy == "IfNeeded":
                    state.previously_invoked.append(hook.uid)
            if stop:
                return
            current["object"] = outcome.object

    def _answer(
        self, hook: Any, request: dict, record: dict, outcome: WebhookOutcome, kind: str, round_number: int, index: int
    ) -> bool:
        mock = self.mocks.get(hook.name)
        answer = str((mock or {}).get("response") or "allow")
        record["mock"] = dict(mock) if mock else None
        for w in (mock or {}).get("warnings") or ():
            outcome.warnings.append(str(w))
        for key, value in dict((mock or {}).get("auditAnnotations") or {}).items():
            outcome.audit_annotations[f"{hook.name}/{key}"] = str(value)
        if answer == "timeout":
            error = (
                f'failed calling webhook "{hook.name}": failed to call webhook: Post "{hook.url()}": '
                "context deadline exceeded"
            )
            record["result"] = "error"
            record["callError"] = error
            if hook.failure_policy == "Ignore":
                key = f"failed-open.{kind}.webhook.admission.k8s.io/round_{round_number}_index_{index}"
                outcome.audit_annotations[key] = hook.name
                return False
            outcome.denial = {"code": 500, "reason": "InternalError", "message": f"Internal error occurred: {error}"}
            return True
        if answer == "deny":
            record["result"] = "denied"
            outcome.denial = _denied(hook.name, mock or {})
            return True
        if answer == "patch" and kind == "mutating":
            patch = (mock or {}).get("patch") or []
            try:
                patched = apply_patch(copy.deepcopy(request.get("object")), list(patch))
            except (PatchError, TypeError, ValueError) as e:
                error = f'failed calling webhook "{hook.name}": {e}'
                record["result"] = "error"
                record["callError"] = error
                outcome.denial = {
                    "code": 500,
                    "reason": "InternalError",
                    "message": f"Internal error occurred: {error}",
                }
                return True
            mutated = not semantic_equal(request.get("object"), patched)
            outcome.object = patched
            outcome.patched = True
            key = f"mutation.webhook.admission.k8s.io/round_{round_number}_index_{index}"
            outcome.audit_annotations[key] = json.dumps(
                {"configuration": hook.configuration, "webhook": hook.name, "mutated": mutated}, separators=(",", ":")
            )
            record["result"] = "patched"
            record["patch"] = patch
            record["mutated"] = mutated
            return False
        record["result"] = "allowed"
        return False
