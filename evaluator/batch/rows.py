"""A `Row`: what the batch keeps of one object's admission result, small and JSON-serialisable.

`row_of(index, obj, result)` keeps the identity of the object, the decision, the warnings, and one outcome
per policy that took part: ValidatingAdmissionPolicy tuples (`policy`, `binding`; skipped tuples are left
out), MutatingAdmissionPolicy tuples (`mutated` when they changed the object, else `admitted`), Kyverno
ClusterPolicy/Policy rule results (`policy` the policy, `binding` the rule: `pass` admitted, `fail` denied
under Enforce and audited under Audit, `warn` warned, `error` error; `skip` left out), Kyverno
ValidatingPolicy results (`fail` denied/warned/audited by its validationActions), Kyverno mutate rules that
patched the object (`mutated`) or erred (`error`), Kyverno generate rules that would create, update or delete
objects (`generated`, the objects named in `message`) or erred, and validating webhooks that were called.
The full result of one object is recomputed on demand (`explain`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from evaluator.k8s.kinds import KYVERNO_MUTATING_POLICY_KINDS

__all__ = ["Row", "Outcome", "OUTCOMES", "row_of", "policy_key", "label", "mapping_at"]

OUTCOMES = ("admitted", "denied", "warned", "audited", "error")  # plus "mutated" and "generated" when they occur


class Outcome(TypedDict):
    kind: str  # ValidatingAdmissionPolicy, MutatingAdmissionPolicy, ClusterPolicy, Policy, ValidatingPolicy...
    policy: str
    binding: str | None  # the binding, or the Kyverno rule, or the webhook
    outcome: str
    message: str | None


class Row(TypedDict):
    index: int
    apiVersion: str
    kind: str
    namespace: str
    name: str
    allowed: bool
    message: str | None  # the denial the client would see (status.message), or the request's own error
    warnings: list[str]
    policies: list[Outcome]
    uid: NotRequired[str]  # the object's metadata.uid, when it has one (a PolicyReport is named after it)


def policy_key(outcome: Mapping[str, Any]) -> str:
    """The name a policy is counted under: a ValidatingAdmissionPolicy by its name, others as `Kind/name`."""
    kind = outcome.get("kind") or "ValidatingAdmissionPolicy"
    return outcome["policy"] if kind == "ValidatingAdmissionPolicy" else f"{kind}/{outcome['policy']}"


def label(row: Mapping[str, Any]) -> str:
    """`Deployment default/web` (cluster-scoped: `Namespace prod`); `object N` (its place in the batch, from
    1) when it has no kind or name."""
    if not row.get("kind") or not row.get("name"):
        return f"object {int(row.get('index') or 0) + 1}"
    name = f"{row['namespace']}/{row['name']}" if row.get("namespace") else str(row.get("name"))
    return f"{row.get('kind')} {name}"


def _named(error: Mapping[str, Any]) -> str:
    """A request error's message led by the object it is about (its `source`: `Kind namespace/name`)."""
    source, message = error.get("source"), str(error.get("text") or error.get("message") or "")
    return f"{source}: {message}" if source and not message.startswith(f"{source}:") else message


def mapping_at(data: Any, key: str) -> Mapping[str, Any]:
    """`data[key]` when both are mappings, else an empty one (user objects may hold anything anywhere)."""
    value = data.get(key) if (type(data) is dict or isinstance(data, Mapping)) else None
    return value if (type(value) is dict or isinstance(value, Mapping)) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def row_of(index: int, obj: Any, result: Mapping[str, Any]) -> Row:
    meta = mapping_at(obj, "metadata")
    status = result.get("status") or {}
    # the request's own error, naming the object, before the status that only says it is invalid
    message = next((_named(e) for e in result.get("requestErrors") or () if e.get("severity") == "error"), None)
    if message is None and not result.get("allowed"):
        message = status.get("message")
    row: Row = {
        "index": index,
        "apiVersion": _text(obj.get("apiVersion")) if (type(obj) is dict or isinstance(obj, Mapping)) else "",
        "kind": _text(obj.get("kind")) if (type(obj) is dict or isinstance(obj, Mapping)) else "",
        "namespace": _text(meta.get("namespace")),
        "name": _text(meta.get("name")) or _text(meta.get("generateName")),
        "allowed": bool(result.get("allowed")),
        "message": message,
        "warnings": list(result.get("warnings") or ()),
        "policies": outcomes(result),
    }
    uid = _text(meta.get("uid"))
    if uid:
        row["uid"] = uid
    return row


def outcomes(result: Mapping[str, Any]) -> list[Outcome]:
    out: list[Outcome] = []
    for record in result.get("policies") or ():
        outcome = record.get("outcome")
        if outcome == "skipped":
            continue
        kind = record.get("kind") or "ValidatingAdmissionPolicy"
        if kind == "MutatingAdmissionPolicy" and outcome == "unchanged":
            outcome = "admitted"
        message = record.get("error") or _first_message(record.get("decisions"))
        out.append(
            {
                "kind": kind,
                "policy": record["policy"],
                "binding": record.get("binding"),
                "outcome": outcome,
                "message": message,
            }
        )
    out.extend(_kyverno_mutations(result.get("kyvernoMutation")))
    for entry in result.get("kyverno") or ():
        out.extend(_kyverno(entry))
        if entry.get("generate"):
            out.extend(_kyverno_generations(entry))
    for webhook in result.get("validatingWebhooks") or ():
        outcome = _WEBHOOK_OUTCOMES.get(webhook.get("result"))
        if webhook.get("called") and outcome:
            out.append(
                {
                    "kind": webhook.get("kind") or "ValidatingWebhookConfiguration",
                    "policy": str(webhook.get("configuration")),
                    "binding": webhook.get("webhook"),
                    "outcome": outcome,
                    "message": webhook.get("error"),
                }
            )
    return out


def _first_message(decisions: Any) -> str | None:
    """The first decision's message that is not empty (a loop: this runs for every record of a batch)."""
    for decision in decisions or ():
        message = decision.get("message")
        if message:
            return message
    return None


_WEBHOOK_OUTCOMES = {
    "allowed": "admitted",
    "patched": "admitted",
    "denied": "denied",
    "error": "error",
    "refused": "error",
}
_KYVERNO_FAIL = {"Enforce": "denied", "enforce": "denied", "Audit": "audited", "audit": "audited"}


def _kyverno_name(entry: Mapping[str, Any]) -> str:
    """A Kyverno policy as rows name it: `ns/name` for a Policy."""
    name = str(entry.get("policy"))
    return f"{entry['namespace']}/{name}" if entry.get("namespace") else name


def _kyverno_mutations(output: Any) -> list[Outcome]:
    """Per Kyverno mutate rule that patched the object (`mutated`) or erred (`error`), over both calls of
    the webhook when it was reinvoked (each rule once per outcome)."""
    if not output:
        return []
    out: list[Outcome] = []
    seen: set[tuple[str, str, str]] = set()
    ignored = set(output.get("ignoredPolicies") or ())
    for call in (output.get("firstRound"), output):
        for entry in (call or {}).get("policies") or ():
            for rule in entry.get("rules") or ():
                if rule.get("result") == "error":
                    outcome = "error"
                elif rule.get("patches") and entry.get("policy") not in ignored:
                    outcome = "mutated"
                else:
                    continue
                key = (_kyverno_name(entry), str(rule.get("rule")), outcome)
                if key in seen:
                    continue
                seen.add(key)
                message = rule.get("message") or None if outcome == "error" else None
                out.append(
                    {
                        "kind": entry.get("kind") or "ClusterPolicy",
                        "policy": key[0],
                        "binding": key[1],
                        "outcome": outcome,
                        "message": message,
                    }
                )
    return out


def _kyverno_generations(entry: Mapping[str, Any]) -> list[Outcome]:
    """Per Kyverno generate rule that would create, update or delete objects (`generated`, naming them) or
    erred (`error`)."""
    out: list[Outcome] = []
    for rule in entry.get("generate") or ():
        objects = rule.get("objects") or ()
        if rule.get("result") == "error":
            outcome, message = "error", rule.get("message") or None
        elif objects:
            outcome, message = "generated", "; ".join(_generated(o) for o in objects)
        else:
            continue
        out.append(
            {
                "kind": entry.get("kind") or "ClusterPolicy",
                "policy": _kyverno_name(entry),
                "binding": rule.get("rule"),
                "outcome": outcome,
                "message": message,
            }
        )
    return out


def _generated(item: Mapping[str, Any]) -> str:
    """`create ConfigMap prod/cm`."""
    obj = item.get("object")
    meta = mapping_at(obj, "metadata")
    name = f"{_text(meta.get('namespace'))}/{_text(meta.get('name'))}".lstrip("/")
    kind = _text(obj.get("kind")) if isinstance(obj, Mapping) else ""
    return f"{item.get('action')} {kind} {name}"


def _kyverno(entry: Mapping[str, Any]) -> list[Outcome]:
    kind = entry.get("kind") or "ClusterPolicy"
    name = _kyverno_name(entry)
    vpol = "validationActions" in entry
    if vpol and entry.get("mode") not in (None, "Kubernetes"):
        return []  # JSON/Envoy/HTTP ValidatingPolicies take no part in admission
    actions = entry.get("validationActions") or ["Deny"]
    out: list[Outcome] = []
    for rule in entry.get("rules") or ():
        result = rule.get("result")
        if result == "skip":
            continue
        if result == "pass":
            outcome = "mutated" if entry.get("patch") and kind in KYVERNO_MUTATING_POLICY_KINDS else "admitted"
        elif result == "warn":
            outcome = "warned"
        elif result == "error":
            outcome = "error"
        elif vpol:
            outcome = "denied" if "Deny" in actions else "warned" if "Warn" in actions else "audited"
        else:
            outcome = _KYVERNO_FAIL.get(str(rule.get("action")), "denied")
        out.append(
            {
                "kind": kind,
                "policy": name,
                "binding": rule.get("rule"),
                "outcome": outcome,
                "message": rule.get("message") or None,
            }
        )
    return out
