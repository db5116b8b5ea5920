"""What a ValidatingAdmissionPolicy tuple's result says, declared once: the record's fields, the words of a
decision and an audit annotation, the outcome words and their rank, and what each validationAction does with a
failed validation (the Deny denial, the Warn text, the Audit failure entry).

The dispatcher's general path reads these per decision. `LeanTuple` (the shortcut) reads them through the
binding's `TupleForm`, made once per (policy, binding) from the same declarations: its prepared decisions,
warnings and failure entries are these functions' answers, computed ahead, never a copy of their wording.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ADMIT, DENY = "admit", "deny"
EVAL_ADMIT, EVAL_DENY, EVAL_ERROR = "admit", "deny", "error"
PUBLISH, EXCLUDE, ERROR = "publish", "exclude", "error"

# A policy record's fields in the order the result writes them, with their value until something sets them.
# The lists (validationActions, decisions, auditAnnotations) are every record's own (see `new_record`).
RECORD: dict[str, Any] = {
    "policy": None,
    "binding": None,
    "param": None,
    "outcome": "admitted",
    "skipReason": None,
    "failurePolicy": None,
    "validationActions": None,
    "error": None,
    "matchedKind": None,
    "matchedResource": None,
    "decisions": None,
    "auditAnnotations": None,
    "trace": None,
}

# The outcome word a failed validation adds under each validationAction (unknown actions add none) ...
ACTION_OUTCOMES = {"Deny": "denied", "Audit": "audited", "Warn": "warned"}
# ... and which word a tuple's record says when several were added: a denial wins, then an error under Fail,
# then the softer actions. An error that failurePolicy Ignore swallowed ("error-ignored") still reads "error".
OUTCOME_RANK = ("denied", "error", "warned", "audited")
ERROR_IGNORED = "error-ignored"

MAX_AUDIT_ANNOTATION_VALUE_BYTES = 10 * 1024


@dataclass
class Denial:
    policy: str
    binding: str | None
    message: str
    reason: str = ""


def outcome(words: Iterable[str]) -> str:
    """The record's outcome for the words its decisions added (see OUTCOME_RANK)."""
    found = set(words)
    for name in OUTCOME_RANK:
        if name in found:
            return name
    return "error" if ERROR_IGNORED in found else "admitted"


def skip_reason(failed_condition: str) -> str:
    """A tuple's skipReason when the named matchCondition evaluated to false."""
    return f"matchCondition '{failed_condition}' evaluated to false"


def template(policy_name: str, binding_name: str | None, failure_policy: str) -> dict[str, Any]:
    """RECORD with what a (policy, binding) says of every one of its records."""
    return {**RECORD, "policy": policy_name, "binding": binding_name, "failurePolicy": failure_policy}


def decision_entry(index: int, action: str, evaluation: str, message: str, reason: str) -> dict[str, Any]:
    """A decision as the record lists it (empty texts are null)."""
    return {
        "index": index,
        "action": action,
        "evaluation": evaluation,
        "message": message or None,
        "reason": reason or None,
    }


def annotation_value(value: Any) -> str | None:
    """What an auditAnnotation's value publishes ("" excludes it); None for a value that is neither a string
    nor null (an error the general path words)."""
    if isinstance(value, str):
        return value.strip()
    return "" if value is None else None


def collect(collector: dict[str, list[str]], key: str, value: str) -> None:
    """A published audit annotation of the policy, cut to the server's size limit; equal values once."""
    encoded = value.encode()
    if len(encoded) > MAX_AUDIT_ANNOTATION_VALUE_BYTES:
        value = encoded[:MAX_AUDIT_ANNOTATION_VALUE_BYTES].decode(errors="ignore")
    values = collector.setdefault(key, [])
    if value not in values:
        values.append(value)


def annotation_entry(key: str, action: str, value: str, error: str) -> dict[str, Any]:
    """An auditAnnotation as the record lists it (empty texts are null)."""
    return {"key": key, "action": action, "value": value or None, "error": error or None}


def published(key: str, value: str) -> dict[str, Any]:
    """The entry of an auditAnnotation whose value evaluated without error (see annotation_value)."""
    return annotation_entry(key, PUBLISH if value else EXCLUDE, value, "")


class TupleForm:
    """What a (policy, binding)'s records and failed validations say that no request changes, read from the
    declarations above once: the record template, the outcome words of a failure and of an error."""

    __slots__ = (
        "policy_name",
        "binding_name",
        "policy_name_ref",
        "actions",
        "template",
        "failed_words",
        "error_words",
        "failed_outcome",
    )

    def __init__(
        self, policy_name: str, binding_name: str | None, actions: list[str], policy_name_ref: str, failure_policy: str
    ):
        self.policy_name, self.binding_name, self.actions = policy_name, binding_name, actions
        self.policy_name_ref = policy_name_ref  # the binding's spec.policyName, as audit failures quote it
        self.template = template(policy_name, binding_name, failure_policy)
        # The words a failed validation adds; a decision that is an error under Fail denies as "error".
        self.failed_words = frozenset(ACTION_OUTCOMES[a] for a in actions if a in ACTION_OUTCOMES)
        self.error_words = frozenset("error" if word == "denied" else word for word in self.failed_words)
        self.failed_outcome = outcome(self.failed_words)  # a tuple's outcome once a validation failed

    def new_record(self, param: str | None, matched_kind: Any, matched_resource: Any) -> dict[str, Any]:
        """An admitted record of this tuple, with its own lists and copies of the (shared) match results.
        `param`: its key."""
        record = self.template.copy()
        record["validationActions"] = self.actions.copy()
        record["decisions"] = []
        record["auditAnnotations"] = []
        if param is not None:
            record["param"] = param
        record["matchedKind"] = matched_kind.copy() if type(matched_kind) is dict else matched_kind
        record["matchedResource"] = matched_resource.copy() if type(matched_resource) is dict else matched_resource
        return record

    def failure(self, position: int, index: int, evaluation: str, message: str, reason: str) -> tuple:
        """(decision entry, message, reason, Warn text, Audit failure entry) of a decision that denies."""
        warning = (
            f"Validation failed for ValidatingAdmissionPolicy '{self.policy_name}' "
            f"with binding '{self.binding_name}': {message}"
        )
        failure = {
            "message": message,
            "policy": self.policy_name_ref,
            "binding": self.binding_name,
            "expressionIndex": position,
            "validationActions": None,  # each entry's own copy (see apply)
        }
        return decision_entry(index, DENY, evaluation, message, reason), message, reason, warning, failure

    def apply(self, failed: tuple, out: Any) -> None:
        """What a decision that denies (`failure`'s) does under each of the binding's actions, in their order."""
        _, message, reason, warning, failure = failed
        for action in self.actions:
            if action == "Deny":
                out.denials.append(Denial(self.policy_name, self.binding_name, message, reason))
            elif action == "Audit":
                out.validation_failures.append({**failure, "validationActions": self.actions.copy()})
            elif action == "Warn":
                if warning not in out.warnings:
                    out.warnings.append(warning)
