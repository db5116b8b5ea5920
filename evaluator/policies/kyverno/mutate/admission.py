"""Kyverno's mutate rules as a policy kind of the admission core: Kyverno's mutating webhook.

It runs in the mutating stage after MutatingAdmissionPolicy and the other mutating webhooks' checks (a
webhook, order 250), so the validating kinds (Kyverno's validate rules among them) see the object it patched,
as in a cluster. Its description of what it did goes to `result["kyvernoMutation"]` (`mutate()`'s output:
`patchedObject`, `patch`, `patchBase64`, `diff`, `mutations` per rule, `errors`, `policies`; `diff` is None
on a batch run, `RequestContext.full` False, which reads only the verdict and the patches).

As Kyverno's mutation handler (pkg/webhooks/resource/mutation/mutation.go): the rules all run, each policy
seeing the one before it; a policy with a rule in error denies the request when the failure policy in force
is Fail (a policy's `failurePolicy`, default Fail; once a policy has Fail it stays in force for the policies
after it), with `mutation policy <p> error: failed to apply policy <p> rules [<rule>: <message>]`; under
Ignore that policy's patches are left out of the response (`ignoredPolicies`). A rule's error carries the
place in the policy it is about (`location`: line and column of the rule's field).

Reinvocation: Kyverno registers its resource mutating webhooks with `reinvocationPolicy: IfNeeded`, so when
its patches changed the object the API server runs the mutating chain once more (MutatingAdmissionPolicies
with IfNeeded first), and calls Kyverno again only if it was called before and the object changed after its
patches. What each policy changed goes to the core's `mutationPhases` (`KindOutcome.changes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
from evaluator.policies.mutating.diff import encode_patch, json_patch_between, semantic_equal
from evaluator.policies.mutating.jsonpatch import PatchError

from ..rule_location import error_path
from ..webhook import kyverno_policies
from . import has_mutate_rules, json6902, mutate, unified_diff

KIND_NAME = "ClusterPolicy mutate rules"
# Kyverno registers its mutating webhook under this name when the policies' failurePolicy is Fail
WEBHOOK_NAME = "mutate.kyverno.svc-fail"


def failure_policy(policy: Mapping[str, Any]) -> str:
    """Spec.GetFailurePolicy: webhookConfiguration.failurePolicy, else failurePolicy, else Fail."""
    spec = policy.get("spec") or {}
    chosen = (spec.get("webhookConfiguration") or {}).get("failurePolicy") or spec.get("failurePolicy") or "Fail"
    return "Fail" if chosen == "Fail" else "Ignore"


def _failed_rules(policy_result: dict) -> list[str]:
    return [f"{r['rule']}: {r['message']}" for r in policy_result["rules"] if r["result"] in ("fail", "error")]


def admission_outcome(policies: list[dict], output: dict, original: Any) -> tuple[Any, str | None, list[str]]:
    """(the object the webhook's patches make of `original`, the denial message or None, the names of the
    policies whose patches were left out)."""
    by_name = {(p.get("metadata") or {}).get("name", ""): p for p in policies}
    in_force = "Ignore"
    obj = original
    decoded = False  # whether `obj` is what json6902.apply decoded
    ignored: list[str] = []
    for result in output["policies"]:
        if failure_policy(by_name.get(result["policy"], {})) == "Fail":
            in_force = "Fail"
        failed = _failed_rules(result)
        if failed and in_force == "Fail":
            name = result["policy"]
            return (
                obj,
                f"mutation policy {name} error: failed to apply policy {name} rules [{' '.join(failed)}]",
                ignored,
            )
        if failed:
            ignored.append(result["policy"])
            continue
        operations = [op for r in result["rules"] for op in r.get("patches") or []]
        if not operations and decoded:
            continue  # the patch would give a JSON copy of `obj`, itself one already
        try:
            obj = json6902.apply(obj, operations)
            decoded = True
        except PatchError:
            obj = result["patchedObject"]
            decoded = False
    return obj, None, ignored


@register
class KyvernoMutations:
    name = KIND_NAME
    stage = MUTATING
    order = 250  # a mutating webhook, after MutatingAdmissionPolicy (100) and the webhooks' own checks (200)
    phase = "KyvernoMutate"
    reinvocable = True  # Kyverno registers its resource mutating webhooks with reinvocationPolicy IfNeeded
    result_keys: Mapping[str, Any] = {"kyvernoMutation": None}

    def __init__(self) -> None:
        self.documents: list[Mapping[str, Any]] = []
        self.policies: list[dict] = []
        self.active = False
        self.idle = True
        self._locate: Any = lambda document, **fields: dict(fields)

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.documents = list(setup.documents)
        self.policies = [p for p in kyverno_policies(self.documents) if has_mutate_rules(p)]
        self.active = bool(self.policies)
        self.idle = not self.policies
        self._locate = setup.locate
        return []

    def _locate_errors(self, output: dict) -> None:
        """Each rule error's place in its policy (`location`), for the editor to point at."""
        by_name = {(p.get("metadata") or {}).get("name", ""): p for p in self.policies}
        for mutation in output["mutations"]:
            policy = by_name.get(mutation["policy"])
            if mutation["result"] != "error" or policy is None:
                continue
            path = error_path(policy, mutation["rule"], mutation["message"])
            if path is not None:
                mutation["location"] = self._locate(policy, severity="error", path=path, message=mutation["message"])

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        if not self.policies or request.get("object") is None:
            return KindOutcome(keys={"kyvernoMutation": None})
        reinvocation = context.reinvocation
        state = reinvocation.values.get(self.name)
        if reinvocation.is_reinvoke:
            # Kyverno's webhooks have reinvocationPolicy IfNeeded: called again only if called before and the
            # object changed after its patches (a later webhook, or a MutatingAdmissionPolicy's second round)
            if state is None or not state.called or semantic_equal(state.output, request.get("object")):
                return state.outcome if state is not None else KindOutcome(keys={"kyvernoMutation": None})
            outcome = self._call(request, context, 1)
            outcome.keys["kyvernoMutation"]["firstRound"] = state.outcome.keys["kyvernoMutation"]
            return outcome
        outcome = self._call(request, context, 0)
        output = outcome.keys["kyvernoMutation"]
        called = any(p["rules"] for p in output["policies"])
        state = reinvocation.values[self.name] = _Round(called, output["patchedObject"], _first_round(outcome))
        if outcome.changes:
            reinvocation.should_reinvoke = True
        return outcome

    def _call(self, request: Mapping[str, Any], context: RequestContext, round_number: int) -> KindOutcome:
        """One call of Kyverno's mutating webhook on the object so far."""
        documents = [dict(d) for d in self.documents]
        output = mutate(self.policies, dict(request), documents=documents, diff=context.full)
        output["round"] = round_number
        output["object"] = request.get("object")  # what this call received (after MutatingAdmissionPolicy)
        self._locate_errors(output)
        obj, denied, ignored = admission_outcome(self.policies, output, request.get("object"))
        if ignored:
            output["ignoredPolicies"] = ignored
            output["patchedObject"] = obj
            output["patch"] = json_patch_between(request.get("object"), obj)
            output["patchBase64"] = encode_patch(output["patch"]) if output["patch"] else None
            output["patchType"] = "JSONPatch" if output["patch"] else None
            if context.full:
                output["diff"] = unified_diff(request.get("object"), obj) if output["patch"] else ""
        if denied is not None:
            message = f'admission webhook "{WEBHOOK_NAME}" denied the request: {denied}'
            status = {"code": 400, "reason": "", "message": message}
            return KindOutcome(
                denial=Denial(
                    {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status},
                    ferricel={"accepted": False, "message": message, "code": 400},
                ),
                keys={"kyvernoMutation": output},
            )
        changed = bool(output["patch"])
        return KindOutcome(
            object=obj if changed else UNCHANGED,
            changes=policy_changes(output, ignored) if changed else [],
            keys={"kyvernoMutation": output},
        )


@dataclass
class _Round:
    """Kyverno's webhook between the two rounds: whether the API server called it, what it answered with."""

    called: bool
    output: Any  # the object after its patches
    outcome: KindOutcome  # its first-round outcome, as the result keeps it when it is not called again


def _first_round(outcome: KindOutcome) -> KindOutcome:
    """The first round's outcome as it stands after a reinvocation that does not call the webhook: its
    description and records, but no change of its own any more (the object already carries it)."""
    return KindOutcome(records=outcome.records, warnings=outcome.warnings, keys=outcome.keys)


def policy_changes(output: dict, ignored: list[str]) -> list[dict[str, Any]]:
    """Per policy that patched, for `mutationPhases`: its rules' JSON Patch and the rules that made it."""
    changes = []
    for result in output["policies"]:
        if result["policy"] in ignored:
            continue
        patching = [r for r in result["rules"] if r.get("patches")]
        if patching:
            changes.append(
                {
                    "policy": result["policy"],
                    "kind": result["kind"],
                    "rules": [r["rule"] for r in patching],
                    "patch": [op for r in patching for op in r["patches"]],
                }
            )
    return changes
