"""What the engine reads off a policy map for every request, read once and kept with the policy.

A batch asks the same twenty policies the same questions for every object (its name, its namespace, whether it
generates, which of its rules validate a kind); policies are read, never changed in place (see `memos`), so
the answers are worked out once per policy, or per (policy, kind), and kept by identity.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import autogen
from .memos import Memo, remembered, remembered_under


@dataclass(frozen=True, slots=True)
class PolicyFacts:
    kind: str  # as the result names it: ClusterPolicy unless the map says
    name: object  # metadata.name as written (results keep what the policy says)
    namespace: str  # a Policy's own namespace; "" for a ClusterPolicy
    apply_one: bool  # spec.applyRules: One
    has_generate: bool


def facts(policy: dict) -> PolicyFacts:
    return remembered(policy, _facts, _facts_memo)


def policy_namespace(policy: dict) -> str:
    """A Policy's namespace (it applies there alone); "" for a ClusterPolicy."""
    return (policy.get("metadata") or {}).get("namespace", "") if policy.get("kind") == "Policy" else ""


def generate_rules(policy: dict) -> list[dict]:
    """The policy's generate rules (autogen never makes generate rules)."""
    rules = (policy.get("spec") or {}).get("rules") or []
    return [r for r in rules if isinstance(r, dict) and r.get("generate")]


def validate_rules(policy: dict, kind: str) -> list[dict]:
    """The rules with a validate block among those Kyverno evaluates for a resource of `kind` (autogen's)."""
    return remembered_under((id(policy), kind), policy, _validate_rules, _validate_memo, kind, size=2048)


def _facts(policy: dict) -> PolicyFacts:
    return PolicyFacts(
        kind=policy.get("kind", "ClusterPolicy"),
        name=(policy.get("metadata") or {}).get("name", ""),
        namespace=policy_namespace(policy),
        apply_one=(policy.get("spec") or {}).get("applyRules") == "One",
        has_generate=bool(generate_rules(policy)),
    )


def _validate_rules(policy: dict, kind: str) -> list[dict]:
    return [rule for rule in autogen.compute_rules(policy, kind) if rule.get("validate")]


_facts_memo: Memo = {}
_validate_memo: Memo = {}
