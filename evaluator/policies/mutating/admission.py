"""MutatingAdmissionPolicy as a policy kind of the admission core (mutating stage, first plugin).

The kind runs `MutatingDispatcher` on each request and describes what mutation produced (see
`mutation_output`): `patchedObject`, the JSON Patch from the request's object to it (`patch`, `patchBase64`,
as an AdmissionReview response carries it), every mutation with the object after it, and per (policy,
binding, param) records at the front of `policies`. The mutated object goes on to schema validation and the
validating policies; a denial (`denial_status`) ends admission before they run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import (
    MUTATING,
    UNCHANGED,
    Denial,
    KindOutcome,
    RequestContext,
    Setup,
    register,
)
from evaluator.admission.response import status_for
from evaluator.k8s.kinds import MUTATING_POLICY
from evaluator.policies.mutating import create_rules  # noqa: F401  (registers the create-time rules)
from evaluator.policies.mutating.diff import encode_patch, json_patch_between
from evaluator.policies.mutating.dispatcher import MutatingDispatcher, MutationResult, PolicyError


def mutation_output(result: MutationResult) -> dict[str, Any]:
    """The JSON-ready description of what the mutating policies did (the `mutation` key of a result)."""
    unchanged = result.original is result.object  # no policy ran: the very same object, no diff to compute
    patch = json_patch_between(result.original, result.object) if result.denial is None and not unchanged else []
    return {
        "patchedObject": result.object if result.denial is None else None,
        "patch": patch,
        "patchBase64": encode_patch(patch) if patch else None,
        "patchType": "JSONPatch" if patch else None,
        "mutations": result.mutations,
        "reinvoked": result.reinvoked,
        "errors": [
            {
                "policy": e.policy,
                "binding": e.binding,
                "message": e.text(),
                "failurePolicy": e.failure_policy,
                "ignored": e.failure_policy == "Ignore",
            }
            for e in result.errors
        ],
        "notes": list(result.notes),
    }


def changes_of(result: MutationResult, pass_number: int) -> list[dict[str, Any]]:
    """What each (policy, binding) changed in one pass, for `mutationPhases`: its mutations' patches joined."""
    changes: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in result.mutations:
        if entry.get("pass") != pass_number or not entry.get("changed"):
            continue
        key = (entry["policy"], entry.get("binding") or "")
        change = changes.setdefault(key, {"policy": entry["policy"], "binding": entry.get("binding"), "patch": []})
        change["patch"] += entry["patch"]
    return list(changes.values())


def unchanged_output(original: Any) -> dict[str, Any]:
    """`mutation_output` of a request no mutating policy took part in (`MutationResult(original=original,
    object=original)`), without the intermediate result."""
    return {
        "patchedObject": original,
        "patch": [],
        "patchBase64": None,
        "patchType": None,
        "mutations": [],
        "reinvoked": [],
        "errors": [],
        "notes": [],
    }


def denial_status(request: Mapping[str, Any], error: PolicyError, reason: str = "Invalid") -> dict[str, Any]:
    """The metav1.Status of a MutatingAdmissionPolicy denial (admission.NewForbidden with the error text)."""
    text = error.text()
    if error.internal:
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": text,
            "reason": "InternalError",
            "details": {"causes": [{"message": text.removeprefix("Internal error occurred: ")}]},
            "code": 500,
        }
    return status_for(request, text, reason)


@register
class MutatingAdmissionPolicies:
    name = MUTATING_POLICY
    phase = "MutatingAdmissionPolicy"
    stage = MUTATING
    order = 100
    result_keys: Mapping[str, Any] = {"mutation": None, "patchedObject": None}
    reinvocable = True  # its second round runs after the mutating webhooks' first (the API server's reinvoker)

    def __init__(self) -> None:
        self.dispatcher: MutatingDispatcher | None = None
        self.active = False

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        """Compile every bound MutatingAdmissionPolicy once; their compile errors, located."""
        self.dispatcher = MutatingDispatcher(setup.cluster, None, setup.defaulter)
        hooks = self.dispatcher.hooks()
        self.active = bool(hooks)
        return [
            setup.locate(policy, severity="error", **error)
            for policy, _ in hooks
            for error in self.dispatcher.compiled(policy).compile_errors
        ]

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        """Every mutating policy on a normalized AdmissionRequest; never raises."""
        if not self.active:  # no bound policy: the object passes as it came (first_round's own answer, sooner)
            original = request.get("object")
            return KindOutcome(keys={"mutation": unchanged_output(original), "patchedObject": original})
        self.dispatcher.authorizer_factory = context.authorizers
        reinvocation = context.reinvocation
        session = reinvocation.values.get(self.name)
        if reinvocation.is_reinvoke and session is not None:
            result = self.dispatcher.second_round(request, session)
        else:
            session = self.dispatcher.first_round(request)
            reinvocation.values[self.name] = session
            if session.state.should_reinvoke:
                reinvocation.should_reinvoke = True
            result = session.result
        output = mutation_output(result)
        denial = None
        if result.denial is not None:
            error = result.denial
            status = denial_status(context.original, error)
            denial = Denial(
                status,
                denials=[
                    {
                        "policy": error.policy,
                        "binding": error.binding,
                        "message": error.text(),
                        "reason": status["reason"],
                    }
                ],
                ferricel={"accepted": False, "message": error.text(), "code": status["code"]},
            )
        return KindOutcome(
            records=result.policies,
            denial=denial,
            # no policy took part: the object is whatever the chain made of it, not this kind's copy
            object=result.object if session.active else UNCHANGED,
            changes=changes_of(result, 2 if reinvocation.is_reinvoke else 1),
            keys={"mutation": output, "patchedObject": output["patchedObject"]},
        )
