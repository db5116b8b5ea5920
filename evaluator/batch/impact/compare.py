"""One request through both policy sets, and what changed between the two answers.

`side_of(result)` keeps what a client and an auditor see of one `simulate` result: the decision, the
message (`status.message`, or the request's own error), the Warning headers, and one outcome per policy
that took part (evaluator/batch/rows.py: the same outcomes `batch` counts). `compare(base, head)` names
the changes: a request can be `newlyDenied` (admitted before, denied now), `newlyAllowed`, `newlyWarned`
(a Warning it did not get before), `newErrors` (a policy errs that did not, or the request fails without a
policy denying it), `messageChanged` (same decision, other words: the denial, a warning gone, a policy's
message) and `newlyAudited` (a policy audits a failure it did not); any difference at all makes it
`changed`. `compare_chunk` runs a chunk of replay items (items.py) through both sets -- each compiled once
per process (engine.compiled) -- and returns its summary and its changed requests, plain JSON: a Celery
task or a pool worker returns it as is, and the summaries merge exactly (summary.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from evaluator.batch.engine import compiled
from evaluator.batch.impact.items import Identity, Item, identity
from evaluator.batch.rows import Outcome, outcomes, policy_key

__all__ = [
    "Side",
    "Change",
    "CATEGORIES",
    "side_of",
    "compare",
    "policy_changes",
    "compare_chunk",
    "worst_by_policy",
    "explain",
]

# the request-level categories, in the order reports show them
CATEGORIES = ("newlyDenied", "newlyAllowed", "newlyWarned", "newErrors", "messageChanged", "newlyAudited")
_RANK = {"admitted": 0, "audited": 1, "warned": 2, "denied": 3, "error": 4}


class Side(TypedDict):
    allowed: bool
    message: str | None
    warnings: list[str]
    policies: list[Outcome]


class Change(Identity):
    index: int
    line: int | None
    time: str | None
    auditID: str | None
    notes: list[str]
    categories: list[str]
    changedPolicies: list[str]  # the policies (as the summary keys them) whose outcome or message changed
    base: Side
    head: Side


def side_of(result: Mapping[str, Any]) -> Side:
    """What the report keeps of one `simulate` result (the batch row without the object's identity)."""
    allowed = bool(result.get("allowed"))
    status = result.get("status") or {}
    message = None if allowed else status.get("message")
    if message is None:
        message = next((e["message"] for e in result.get("requestErrors") or () if e.get("severity") == "error"), None)
    return {
        "allowed": allowed,
        "message": message,
        "warnings": list(result.get("warnings") or ()),
        "policies": outcomes(result),
    }


def worst_by_policy(side: Side) -> dict[str, tuple[str, str, list[Outcome]]]:
    """Per policy key: (kind, its worst outcome over its bindings/rules, its outcomes)."""
    found: dict[str, tuple[str, str, list[Outcome]]] = {}
    for outcome in side["policies"]:
        key = policy_key(outcome)
        kind, worst, items = found.get(key, (outcome["kind"], "", []))
        result = outcome["outcome"]
        if result in _RANK and (not worst or _RANK[result] > _RANK[worst]):
            worst = result
        items.append(outcome)
        found[key] = (kind, worst, items)
    return found


def _errs(side: Side) -> bool:
    kinds = {o["outcome"] for o in side["policies"]}
    return "error" in kinds or (not side["allowed"] and "denied" not in kinds)


def policy_changes(base: Side, head: Side) -> dict[str, tuple[str, str, str, list[str]]]:
    """Per policy whose outcomes or messages differ: (kind, base worst outcome, head worst outcome,
    its categories). A policy absent on one side has outcome "" there (out of scope, or not in that set)."""
    before, after = worst_by_policy(base), worst_by_policy(head)
    out: dict[str, tuple[str, str, str, list[str]]] = {}
    for key in before.keys() | after.keys():
        kind_b, b, items_b = before.get(key, ("", "", []))
        kind_h, h, items_h = after.get(key, ("", "", []))
        if _signature(items_b) == _signature(items_h):
            continue
        categories = []
        if h == "denied" and b != "denied":
            categories.append("newlyDenied")
        if b == "denied" and h != "denied":
            categories.append("newlyAllowed")
        if h == "warned" and b != "warned":
            categories.append("newlyWarned")
        if h == "error" and b != "error":
            categories.append("newErrors")
        if h == "audited" and b != "audited":
            categories.append("newlyAudited")
        if b == h:
            categories.append("messageChanged")
        out[key] = (kind_h or kind_b, b, h, categories)
    return out


def _signature(items: Sequence[Outcome]) -> list[tuple[str, str, str, str]]:
    return sorted((str(o["binding"]), o["outcome"], o["message"] or "", o["kind"]) for o in items)


def compare(base: Side, head: Side) -> list[str]:
    """The request's categories (CATEGORIES order); [] when nothing differs, ["changed"] alone when only
    something no category names differs (a policy's outcome that neither denies, warns nor audits)."""
    if base == head:
        return []
    categories = []
    if base["allowed"] and not head["allowed"]:
        categories.append("newlyDenied")
    if not base["allowed"] and head["allowed"]:
        categories.append("newlyAllowed")
    if set(head["warnings"]) - set(base["warnings"]):
        categories.append("newlyWarned")
    errors_before = {(policy_key(o), o["binding"]) for o in base["policies"] if o["outcome"] == "error"}
    errors_after = {(policy_key(o), o["binding"]) for o in head["policies"] if o["outcome"] == "error"}
    if errors_after - errors_before or (_errs(head) and not _errs(base)):
        categories.append("newErrors")
    if base["allowed"] == head["allowed"] and "newlyWarned" not in categories:
        if base["message"] != head["message"] or base["warnings"] != head["warnings"] or _messages_differ(base, head):
            categories.append("messageChanged")
    audited_before = {policy_key(o) for o in base["policies"] if o["outcome"] == "audited"}
    audited_after = {policy_key(o) for o in head["policies"] if o["outcome"] == "audited"}
    if audited_after - audited_before:
        categories.append("newlyAudited")
    return categories or ["changed"]


def _messages_differ(base: Side, head: Side) -> bool:
    """Some policy has the same outcome on both sides with other words."""
    before = {(policy_key(o), str(o["binding"]), o["outcome"]): o["message"] for o in base["policies"]}
    for o in head["policies"]:
        key = (policy_key(o), str(o["binding"]), o["outcome"])
        if key in before and before[key] != o["message"]:
            return True
    return False


def compare_chunk(
    base_documents: Any,
    head_documents: Any,
    items: Iterable[Item],
    *,
    kubernetes_version: str | None = None,
) -> dict[str, Any]:
    """`{"summary": ImpactSummary.as_dict(), "changes": [Change]}` for a chunk of replay items."""
    from evaluator.batch.impact.summary import ImpactSummary

    base_set = compiled(base_documents, kubernetes_version)
    head_set = compiled(head_documents, kubernetes_version)
    summary = ImpactSummary()
    changes: list[Change] = []
    for item in items:
        request = item["request"]
        base = side_of(base_set.run(request, trace=False, full=False))
        head = side_of(head_set.run(request, trace=False, full=False))
        who = identity(request)
        categories = compare(base, head)
        per_policy = policy_changes(base, head) if categories else {}
        summary.add(who, item.get("time"), base, head, categories, per_policy)
        if categories:
            changes.append(
                {
                    **who,
                    "index": item["index"],
                    "line": item.get("line"),
                    "time": item.get("time"),
                    "auditID": item.get("auditID"),
                    "notes": list(item.get("notes") or ()),
                    "categories": categories,
                    "changedPolicies": sorted(per_policy),
                    "base": base,
                    "head": head,
                }
            )
    return {"summary": summary.as_dict(), "changes": changes}


def explain(
    base_documents: Any, head_documents: Any, request: Any, *, kubernetes_version: str | None = None
) -> dict[str, Any]:
    """`{"base": result, "head": result}`: one request's full `simulate` results (traces, AdmissionReview,
    kubectl text) under both sets, for a drill-down into a change (its item's `request`)."""
    return {
        "base": compiled(base_documents, kubernetes_version).run(request),
        "head": compiled(head_documents, kubernetes_version).run(request),
    }
