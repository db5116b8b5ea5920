"""`Summary`: the counts of a batch run, built from rows and mergeable, so chunks run anywhere add up.

Totals (objects, allowed, denied, warned, audited, errors), per policy (admitted, denied, warned, audited,
error, and `mutated` (MutatingAdmissionPolicies, Kyverno mutate rules) and `generated` (Kyverno generate
rules) when they occur: how many objects the policy changed or generated for; each object counted once, at
its worst rule's or binding's outcome, with per-rule (`rules`), per-webhook or per-binding counts beside, and
up to EXAMPLES_PER_POLICY examples, the lowest indexes), per namespace and per kind. Merging is exact: the
summary of chunks merged in any order equals the summary of all their rows (`as_dict` compares equal).
`as_dict`/`from_dict` round-trip through JSON (a web job stores a summary per chunk).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.batch.rows import OUTCOMES, label, policy_key

__all__ = ["Summary", "EXAMPLES_PER_POLICY"]

EXAMPLES_PER_POLICY = 5
_VAP = "ValidatingAdmissionPolicy"
_COUNTS = ("objects", "allowed", "denied", "warned", "audited", "errors")
# the worst outcome of a policy's rules (bindings, webhooks) is the one an object is counted under
_RANK = {"admitted": 0, "audited": 1, "warned": 2, "denied": 3, "error": 4}
# beside it, per rule of a Kyverno policy, per webhook of a configuration, per binding of the others
_PARTS = {
    "ClusterPolicy": "rules",
    "Policy": "rules",
    "ValidatingWebhookConfiguration": "webhooks",
    "MutatingWebhookConfiguration": "webhooks",
}
_PART_NAMES = ("rules", "webhooks", "bindings")


def _group() -> dict[str, int]:
    return dict.fromkeys(_COUNTS, 0)


class Summary:
    """Counts over rows; `add(row)`, `merge(other)`, `Summary.from_rows(rows)`."""

    def __init__(self) -> None:
        self.total = self.allowed = self.denied = self.warned = self.audited = self.errors = 0
        self.policies: dict[str, dict[str, Any]] = {}
        self.namespaces: dict[str, dict[str, int]] = {}
        self.kinds: dict[str, dict[str, int]] = {}

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> Summary:
        summary = cls()
        for row in rows:
            summary.add(row)
        return summary

    def add(self, row: Mapping[str, Any]) -> None:
        outcomes = {o["outcome"] for o in row["policies"]}
        allowed = 1 if row["allowed"] else 0
        warned = 1 if row["warnings"] else 0
        audited = 1 if "audited" in outcomes else 0
        # a policy error, or a refusal no policy explains (an invalid object, a CRD schema error)
        errors = 1 if "error" in outcomes or (not allowed and "denied" not in outcomes) else 0
        self.total += 1
        self.allowed += allowed
        self.denied += 1 - allowed
        self.warned += warned
        self.audited += audited
        self.errors += errors
        for groups, key in ((self.namespaces, row["namespace"]), (self.kinds, row["kind"])):
            group = groups.get(key)
            if group is None:
                group = groups[key] = _group()
            group["objects"] += 1
            group["allowed"] += allowed
            group["denied"] += 1 - allowed
            group["warned"] += warned
            group["audited"] += audited
            group["errors"] += errors
        by_policy: dict[str, list[Mapping[str, Any]]] = {}
        for outcome in row["policies"]:
            kind = outcome.get("kind")  # policy_key, inlined: this runs for every outcome of a batch
            key = outcome["policy"] if kind is None or kind == _VAP else policy_key(outcome)
            found = by_policy.get(key)
            if found is None:
                by_policy[key] = [outcome]
            else:
                found.append(outcome)
        for key, found in by_policy.items():
            self._add_policy(key, found, row)

    def _add_policy(self, key: str, found: list[Mapping[str, Any]], row: Mapping[str, Any]) -> None:
        """One object under one policy: once, at its worst rule's (binding's) outcome; `mutated` and
        `generated` once each beside; per rule (binding), each outcome once."""
        entry = self.policies.get(key)
        if entry is None:
            entry = self._entry(key, found[0]["kind"])
        worst: Mapping[str, Any] | None = None
        extra: set[str] = set()
        parts: dict[str, set[str]] = {}
        for outcome in found:
            result = outcome["outcome"]
            if result in _RANK:
                if worst is None or _RANK[result] > _RANK[worst["outcome"]]:
                    worst = outcome
            else:
                extra.add(result)
            part = outcome.get("binding")
            if part is not None:
                parts.setdefault(str(part), set()).add(result)
        for result in extra:
            entry[result] = entry.get(result, 0) + 1
            self._example(entry, result, row, next(o for o in found if o["outcome"] == result))
        if worst is not None:
            entry[worst["outcome"]] += 1
            self._example(entry, worst["outcome"], row, worst)
        if parts:
            breakdown = entry.setdefault(_PARTS.get(entry["kind"], "bindings"), {})
            for part, results in parts.items():
                counts = breakdown.get(part)
                if counts is None:
                    counts = breakdown[part] = dict.fromkeys(OUTCOMES, 0)
                for result in results:
                    counts[result] = counts.get(result, 0) + 1

    @staticmethod
    def _example(entry: dict[str, Any], result: str, row: Mapping[str, Any], outcome: Mapping[str, Any]) -> None:
        if result != "admitted":
            examples = entry["examples"].setdefault(result, [])
            if len(examples) < EXAMPLES_PER_POLICY:
                examples.append({"index": row["index"], "object": label(row), "message": outcome["message"]})

    def _entry(self, key: str, kind: str) -> dict[str, Any]:
        entry = self.policies.get(key)
        if entry is None:
            entry = self.policies[key] = {"kind": kind, **dict.fromkeys(OUTCOMES, 0), "examples": {}}
        return entry

    def merge(self, other: Summary) -> Summary:
        """Add `other` into this summary (returned, for chaining)."""
        self.total += other.total
        self.allowed += other.allowed
        self.denied += other.denied
        self.warned += other.warned
        self.audited += other.audited
        self.errors += other.errors
        for mine, theirs in ((self.namespaces, other.namespaces), (self.kinds, other.kinds)):
            for key, group in theirs.items():
                target = mine.setdefault(key, _group())
                for name, value in group.items():
                    target[name] += value
        for key, entry in other.policies.items():
            policy = self._entry(key, entry["kind"])
            for name, value in entry.items():
                if isinstance(value, int):
                    policy[name] = policy.get(name, 0) + value
            for name in _PART_NAMES:
                for part, counts in entry.get(name, {}).items():
                    mine = policy.setdefault(name, {}).setdefault(part, dict.fromkeys(OUTCOMES, 0))
                    for result, value in counts.items():
                        mine[result] = mine.get(result, 0) + value
            for result, examples in entry["examples"].items():
                merged = sorted(policy["examples"].get(result, []) + examples, key=lambda e: e["index"])
                policy["examples"][result] = merged[:EXAMPLES_PER_POLICY]
        return self

    def as_dict(self) -> dict[str, Any]:
        """Plain data, keys sorted where order would depend on the order chunks finished."""
        policies = {}
        for key in sorted(self.policies):
            entry = dict(self.policies[key])
            entry["examples"] = {k: entry["examples"][k] for k in sorted(entry["examples"])}
            for name in _PART_NAMES:
                if name in entry:
                    entry[name] = {k: dict(entry[name][k]) for k in sorted(entry[name])}
            policies[key] = entry
        return {
            "objects": self.total,
            "allowed": self.allowed,
            "denied": self.denied,
            "warned": self.warned,
            "audited": self.audited,
            "errors": self.errors,
            "policies": policies,
            "namespaces": {k: dict(self.namespaces[k]) for k in sorted(self.namespaces)},
            "kinds": {k: dict(self.kinds[k]) for k in sorted(self.kinds)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        summary = cls()
        summary.total = data["objects"]
        for name in ("allowed", "denied", "warned", "audited", "errors"):
            setattr(summary, name, data[name])
        summary.policies = {}
        for k, v in data["policies"].items():
            entry = summary.policies[k] = {**v, "examples": {r: list(e) for r, e in v["examples"].items()}}
            for name in _PART_NAMES:
                if name in v:
                    entry[name] = {part: dict(counts) for part, counts in v[name].items()}
        summary.namespaces = {k: dict(v) for k, v in data["namespaces"].items()}
        summary.kinds = {k: dict(v) for k, v in data["kinds"].items()}
        return summary

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Summary) and self.as_dict() == other.as_dict()

    def text(self) -> str:
        lines = [
            f"{self.total} objects: {self.denied} denied, {self.warned} warned, {self.audited} audited, "
            f"{self.errors} with errors"
        ]
        for name, entry in sorted(self.policies.items()):
            mutated = f", mutated {entry['mutated']}" if entry.get("mutated") else ""
            mutated += f", generated {entry['generated']}" if entry.get("generated") else ""
            lines.append(
                f"  {name}: denied {entry['denied']}, warned {entry['warned']}, audited {entry['audited']}, "
                f"errors {entry['error']}, admitted {entry['admitted']}{mutated}"
            )
            for name in _PART_NAMES:
                parts = entry.get(name, {})
                for part, counts in sorted(parts.items()) if len(parts) > 1 else ():
                    shown = ", ".join(f"{r} {counts[r]}" for r in OUTCOMES[1:] + OUTCOMES[:1] if counts.get(r))
                    lines.append(f"    {name[:-1]} {part}: {shown}")
            for outcome, examples in sorted(entry["examples"].items()):
                for example in examples:
                    lines.append(f"    {outcome}: {example['object']}: {example['message']}")
        if self.namespaces:
            lines.append("by namespace (objects / denied / warned):")
            for key, group in sorted(self.namespaces.items()):
                lines.append(
                    f"  {key or '(cluster-scoped)'}: {group['objects']} / {group['denied']} / {group['warned']}"
                )
        return "\n".join(lines)
