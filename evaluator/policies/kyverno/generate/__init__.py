"""Kyverno generate rules: what a policy's `generate` rules create, update or delete for one admission request.

`run_rules(run, sources)` gives, per generate rule that applies, `{"rule", "result", "message", "triggerResult",
"objects": [{"action": "create"|"update"|"delete", "role": "downstream"|"source", "policy", "rule", "object"}]}`.
`policy_events(policy, request, documents)` covers requests on the policy itself: creating it with
`generateExisting` generates for the triggers among the documents; deleting it deletes the synchronized
downstream unless `orphanDownstreamOnPolicyDelete`. `non_trigger_events(...)` covers edits and deletions of a
synchronized downstream (put back) or a clone source (downstream updated or deleted). Objects are looked up
among the documents only."""

from .non_trigger import non_trigger_events
from .policy_events import policy_events
from .rules import generate_rules, run_rules

__all__ = ["generate_rules", "non_trigger_events", "policy_events", "run_rules"]
