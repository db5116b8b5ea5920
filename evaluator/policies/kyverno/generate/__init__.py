"""Kyverno generate rules: what a policy's `generate` rules create, update or delete for one admission request.

`run_rules(run, sources)` gives, per generate rule that applies, `{"rule", "result", "message", "triggerResult",
"objects": [{"action": "create"|"update"|"delete", "role": "downstream"|"source", "policy", "rule", "object"}]}`.
`policy_events(policy, request, documents)` covers requests on the policy itself: creating it with
`generateExisting` generates for the triggers among the documents; deleting it deletes the synchronized
downstream unless `orphanDownstreamOnPolicyDelete`. Objects are looked up among the documents only."""

from .policy_events import policy_events
from .rules import generate_rules, run_rules

__all__ = ["generate_rules", "policy_events", "run_rules"]
