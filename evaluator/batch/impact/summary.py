"""`ImpactSummary`: the counts of an impact run, mergeable like `batch`'s Summary so chunks run anywhere
add up exactly (`merge`; `as_dict`/`from_dict` round-trip through JSON).

Per request: `requests`, `changed`, each category of compare.CATEGORIES, and the decisions on each side
(`base`/`head`: allowed, denied, warned, audited, errors). The same category counts per namespace, kind,
user, operation and -- for requests with a time (audit logs) -- per hour (`timeline`, UTC,
`2026-12-01T10:00Z`). Per policy: how many requests it newly denies, allows, warns, audits, errs on or words
differently, and its worst outcome per request on each side (`base`/`head`: admitted, denied, warned,
audited, error), and per hour how many requests it changed and newly denied (`policyTimeline`, only for
policies that changed something). Every group has `requests` and `changed` beside the categories.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.batch.impact.compare import CATEGORIES, Side, worst_by_policy
from evaluator.batch.impact.items import Identity

__all__ = ["ImpactSummary", "GROUPS", "DECISIONS"]

GROUPS = ("namespaces", "kinds", "users", "operations", "timeline")
DECISIONS = ("allowed", "denied", "warned", "audited", "errors")
_POLICY_OUTCOMES = ("admitted", "denied", "warned", "audited", "error")
_KINDS_OF = {"namespaces": "namespace", "kinds": "kind", "users": "user", "operations": "operation"}


def _group() -> dict[str, int]:
    return {"requests": 0, "changed": 0, **dict.fromkeys(CATEGORIES, 0)}


def _decisions(side: Side) -> dict[str, int]:
    kinds = {o["outcome"] for o in side["policies"]}
    return {
        "allowed": 1 if side["allowed"] else 0,
        "denied": 0 if side["allowed"] else 1,
        "warned": 1 if side["warnings"] else 0,
        "audited": 1 if "audited" in kinds else 0,
        "errors": 1 if "error" in kinds or (not side["allowed"] and "denied" not in kinds) else 0,
    }


def hour_of(time: str | None) -> str | None:
    """`2026-12-01T10:00Z` from an RFC 3339 time (`2026-12-01T10:17:03.123456Z`); None when it is not one."""
    if not isinstance(time, str) or len(time) < 13 or time[10:11] not in ("T", "t", " "):
        return None
    return f"{time[:10]}T{time[11:13]}:00Z"


class ImpactSummary:
    """Counts over compared requests: `add(...)` (compare_chunk calls it), `merge`, `as_dict`, `from_dict`."""

    def __init__(self) -> None:
        self.totals = _group()
        self.sides = {"base": dict.fromkeys(DECISIONS, 0), "head": dict.fromkeys(DECISIONS, 0)}
        self.groups: dict[str, dict[str, dict[str, int]]] = {name: {} for name in GROUPS}
        self.policies: dict[str, dict[str, Any]] = {}
        self.policy_timeline: dict[str, dict[str, dict[str, int]]] = {}

    def add(
        self,
        who: Identity,
        time: str | None,
        base: Side,
        head: Side,
        categories: list[str],
        per_policy: Mapping[str, tuple[str, str, str, list[str]]],
    ) -> None:
        """One request: its identity, time, both sides, its categories (compare) and per-policy changes
        (policy_changes) -- the worst outcome of every policy on each side is counted too."""
        targets = [self.totals]
        for name, field in _KINDS_OF.items():
            targets.append(self.groups[name].setdefault(str(who[field]), _group()))  # type: ignore[literal-required]
        hour = hour_of(time)
        if hour is not None:
            targets.append(self.groups["timeline"].setdefault(hour, _group()))
        for group in targets:
            group["requests"] += 1
            if categories:
                group["changed"] += 1
            for category in categories:
                if category in group:
                    group[category] += 1
        sides = ("base", "head")
        for names, side in ((sides, base),) if not categories else (((sides[0],), base), ((sides[1],), head)):
            # an unchanged request (most of them) is counted once for both sides
            decisions = _decisions(side)
            worst = worst_by_policy(side)
            for name_ in names:
                counts = self.sides[name_]
                for key, value in decisions.items():
                    counts[key] += value
                for policy, (kind, outcome, _) in worst.items():
                    if outcome:
                        self._policy(policy, kind)[name_][outcome] += 1
        for policy, (kind, _, _, policy_categories) in per_policy.items():
            entry = self._policy(policy, kind)
            entry["changed"] += 1
            for category in policy_categories:
                entry[category] += 1
            if hour is not None:
                counts = self.policy_timeline.setdefault(policy, {}).setdefault(hour, {"changed": 0, "newlyDenied": 0})
                counts["changed"] += 1
                counts["newlyDenied"] += 1 if "newlyDenied" in policy_categories else 0

    def _policy(self, key: str, kind: str) -> dict[str, Any]:
        entry = self.policies.get(key)
        if entry is None:
            entry = self.policies[key] = {
                "kind": kind,
                "changed": 0,
                **dict.fromkeys(CATEGORIES, 0),
                "base": dict.fromkeys(_POLICY_OUTCOMES, 0),
                "head": dict.fromkeys(_POLICY_OUTCOMES, 0),
            }
        return entry

    def merge(self, other: ImpactSummary) -> ImpactSummary:
        """Add `other` into this summary (returned, for chaining)."""
        _add_counts(self.totals, other.totals)
        for name in ("base", "head"):
            _add_counts(self.sides[name], other.sides[name])
        for name in GROUPS:
            mine = self.groups[name]
            for key, group in other.groups[name].items():
                _add_counts(mine.setdefault(key, _group()), group)
        for key, entry in other.policies.items():
            target = self._policy(key, entry["kind"])
            for name, value in entry.items():
                if isinstance(value, int):
                    target[name] += value
            for name in ("base", "head"):
                _add_counts(target[name], entry[name])
        for key, hours in other.policy_timeline.items():
            mine_hours = self.policy_timeline.setdefault(key, {})
            for hour, counts in hours.items():
                _add_counts(mine_hours.setdefault(hour, {"changed": 0, "newlyDenied": 0}), counts)
        return self

    def as_dict(self) -> dict[str, Any]:
        """Plain data, keys sorted (the order chunks finished in does not show)."""
        return {
            **self.totals,
            "base": dict(self.sides["base"]),
            "head": dict(self.sides["head"]),
            "policies": {
                k: {**v, "base": dict(v["base"]), "head": dict(v["head"])} for k, v in sorted(self.policies.items())
            },
            **{name: {k: dict(v) for k, v in sorted(self.groups[name].items())} for name in GROUPS},
            "policyTimeline": {
                k: {hour: dict(c) for hour, c in sorted(v.items())} for k, v in sorted(self.policy_timeline.items())
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ImpactSummary:
        summary = cls()
        summary.totals = {k: int(data[k]) for k in _group()}
        summary.sides = {name: {k: int(data[name][k]) for k in DECISIONS} for name in ("base", "head")}
        summary.groups = {name: {k: dict(v) for k, v in data.get(name, {}).items()} for name in GROUPS}
        summary.policies = {
            k: {**v, "base": dict(v["base"]), "head": dict(v["head"])} for k, v in data.get("policies", {}).items()
        }
        summary.policy_timeline = {
            k: {hour: dict(c) for hour, c in v.items()} for k, v in data.get("policyTimeline", {}).items()
        }
        return summary

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ImpactSummary) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]


def _add_counts(target: dict[str, int], source: Mapping[str, int]) -> None:
    for key, value in source.items():
        target[key] = target.get(key, 0) + value
