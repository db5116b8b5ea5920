"""Admission webhooks as the API server dispatches them: which webhooks it would call for a request
(rules, scope, namespaceSelector, objectSelector, matchPolicy, matchConditions) and, with responses mocked
in the project, what their answers do to the request. See evaluator/webhooks/README.md.
"""
from evaluator.webhooks.matching import WebhookDecision, should_call
from evaluator.webhooks.stage import WebhookStage

__all__ = ["WebhookDecision", "should_call", "WebhookStage"]
