"""PolicyException matching (kyverno.io/v2 PolicyException): which exceptions skip a rule."""

from __future__ import annotations

from . import conditions, wildcard
from .match import MatchInput, _match_helper


def _matches(block: dict, m: MatchInput) -> bool:
    if block.get("any"):
        return any(not _match_helper(f, m) for f in block["any"])
    if block.get("all"):
        return all(not _match_helper(f, m) for f in block["all"])
    return False


def matching_exceptions(exceptions: list, policy: dict, rule_name: str, m: MatchInput, ctx) -> list[tuple[str, dict]]:
    """(key ns/name, exception) of the exceptions that apply to this policy rule and resource."""
    if not exceptions:
        return []
    meta = policy.get("metadata") or {}
    policy_key = (
        f"{meta['namespace']}/" if policy.get("kind") == "Policy" and meta.get("namespace") else ""
    ) + meta.get("name", "")
    keys = []
    for exc in exceptions:
        spec = exc.get("spec") or {}
        applies = any(
            wildcard.match(e.get("policyName", ""), policy_key)
            and any(wildcard.match(r, rule_name) for r in e.get("ruleNames") or [])
            for e in spec.get("exceptions") or []
        )
        if not applies or not _matches(spec.get("match") or {}, m):
            continue
        if spec.get("conditions"):
            try:
                ok, _ = conditions.evaluate_conditions(ctx, spec["conditions"])
            except conditions.ConditionError:
                ok = False
            if not ok:
                continue
        em = exc.get("metadata") or {}
        keys.append(((f"{em['namespace']}/" if em.get("namespace") else "") + em.get("name", ""), exc))
    return keys
