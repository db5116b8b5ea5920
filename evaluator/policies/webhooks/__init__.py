"""Admission webhooks as the API server dispatches them: which webhooks it would call for a request
(rules, scope, namespaceSelector, objectSelector, matchPolicy, matchConditions) and, with responses mocked
in the project (`WebhookMock` documents), what their answers do to the request. See README.md here.
"""

from evaluator.policies.webhooks import kind  # noqa: F401  (registers the two kinds)
from evaluator.policies.webhooks.matching import WebhookDecision, should_call
from evaluator.policies.webhooks.stage import WebhookStage

__all__ = ["WebhookDecision", "WebhookStage", "should_call"]
