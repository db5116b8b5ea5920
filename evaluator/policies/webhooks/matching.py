"""Whether the API server calls a webhook for a request (webhook/generic `ShouldCallHook`).

namespaceSelector and objectSelector first (a selector error is held back until the rules match), then
the rules with matchPolicy (Equivalent tries the equivalent resources), then every matchCondition: any
false condition skips the webhook; errors (with the others true) follow failurePolicy — Fail refuses the
request as Forbidden, Ignore skips the webhook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import expressions as ex
from evaluator.admission.activation import cel_request
from evaluator.admission.matching import compile_criteria

MATCH_CONDITION_DECLARATIONS = frozenset({"object", "oldObject", "request", "authorizer", "authorizer.requestResource"})


@dataclass
class WebhookDecision:
    configuration: str
    webhook: str
    kind: str
    called: bool
    reason: str
    failure_policy: str
    conditions: list[dict] = field(default_factory=list)
    error: str | None = None  # a failure that refuses the request (failurePolicy Fail)
    error_code: int | None = None
    matched_kind: dict | None = None
    matched_resource: dict | None = None

    def to_dict(self) -> dict:
        return {
            "configuration": self.configuration,
            "webhook": self.webhook,
            "kind": self.kind,
            "called": self.called,
            "reason": self.reason,
            "failurePolicy": self.failure_policy,
            "matchConditions": self.conditions,
            "error": self.error,
            "errorCode": self.error_code,
            "matchedKind": self.matched_kind,
            "matchedResource": self.matched_resource,
        }


def should_call(
    hook: Any,
    request: Mapping[str, Any],
    namespaces: Any = None,
    mapper: Any = None,
    authorizers: Callable[[Mapping], tuple[Any, Any]] | None = None,
) -> WebhookDecision:
    decision = WebhookDecision(hook.configuration, hook.name, hook.kind, False, "", hook.failure_policy)
    match = compile_criteria(hook.criteria()).match(request, namespaces, mapper)
    if match.error:
        decision.reason = f"match failed: {match.error}"
        decision.error, decision.error_code = match.error, match.error_code or 500
        return decision
    if not match.matched:
        decision.reason = match.reason
        return decision
    decision.matched_kind, decision.matched_resource = match.matched_kind, match.matched_resource
    conditions = hook.match_conditions
    if conditions:
        verdict = _conditions(hook, conditions, request, match, authorizers, decision)
        if verdict is not None:
            return verdict
    decision.called = True
    decision.reason = "every matchCondition is true" if conditions else "rules match"
    return decision


def _conditions(
    hook: Any,
    conditions: list[Mapping],
    request: Mapping[str, Any],
    match: Any,
    authorizers: Callable | None,
    decision: WebhookDecision,
) -> WebhookDecision | None:
    authorizer, request_resource = authorizers(request) if authorizers else (None, None)
    activation = {
        "object": request.get("object"),
        "oldObject": request.get("oldObject"),
        "request": cel_request(request, match.matched_kind, match.matched_resource),
    }
    if authorizer is not None:
        activation["authorizer"] = authorizer
        activation["authorizer.requestResource"] = request_resource
    errors: list[str] = []
    for condition in conditions:
        name = str(condition.get("name") or "")
        expression = str(condition.get("expression") or "")
        compiled = ex.compile_expression(expression, MATCH_CONDITION_DECLARATIONS, ("bool",))
        record = {"name": name, "expression": expression, "value": None, "error": None, "cost": 0}
        decision.conditions.append(record)
        if compiled.error is not None:
            record["error"] = compiled.error
            errors.append(f"expression '{expression}' resulted in error: {compiled.error}")
            continue
        run = ex.run(compiled, activation)
        record["cost"] = run.cost
        if run.error is not None:
            record["error"] = run.error
            errors.append(f"expression '{expression}' resulted in error: {run.error}")
            continue
        record["value"] = run.value
        if run.value is False:
            decision.reason = f"matchCondition '{name}' is false: the webhook is not called"
            return decision
    if errors:
        if hook.failure_policy == "Ignore":
            decision.reason = "a matchCondition failed and failurePolicy is Ignore: the webhook is skipped"
            return decision
        text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        decision.reason = "a matchCondition failed and failurePolicy is Fail: the request is refused"
        decision.error, decision.error_code = text, 403
        return decision
    return None
