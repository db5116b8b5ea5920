"""Kyverno MutatingPolicy / NamespacedMutatingPolicy as a policy kind of the admission core: Kyverno's mpol and
nmpol mutating webhooks, after the MutatingAdmissionPolicy plugin and the other mutating webhooks.

Each request runs every policy in document order (`MpolStage.run`); the results join `result["kyverno"]`
(with `mutations`, `patch`, `patchedObject` per policy), the mutated object goes on to schema validation and
the validating kinds, and each policy's change is a `mutationPhases` entry (phase "MutatingPolicy"). A policy
that errors under failurePolicy Fail denies the request (`stage.decision`). reinvocationPolicy IfNeeded: when a
later mutating kind changed the object, the policies asking for it run once more on the reinvocation round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
from evaluator.k8s.kinds import KYVERNO_MUTATING_POLICY
from evaluator.policies.mutating.diff import semantic_equal

from .stage import MpolStage, decision


@register
class KyvernoMutatingPolicies:
    name = KYVERNO_MUTATING_POLICY
    phase = "MutatingPolicy"
    stage = MUTATING
    order = 210  # Kyverno's mpol webhooks, after the MutatingAdmissionWebhook configurations (200)
    result_keys: Mapping[str, Any] = {"kyverno": []}
    reinvocable = True

    def __init__(self) -> None:
        self.mpol = MpolStage([])
        self.locate: Callable[..., dict[str, Any]] = lambda document, **fields: dict(fields)
        self.active = False
        self.idle = False

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.mpol = MpolStage(setup.documents, setup.cluster.namespaces)
        self.locate = setup.locate
        self.active = bool(self.mpol.entries)
        self.idle = not self.mpol.entries
        return self.mpol.compile_errors(lambda document, **fields: setup.locate(document, **fields))

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        reinvocation = context.reinvocation
        first = reinvocation.values.get(self.name)
        if reinvocation.is_reinvoke:
            # the reinvocation's outcome replaces the first one: it carries the first round's results too
            if first is None or semantic_equal(first[1], request.get("object")):
                return KindOutcome(keys=first[0].keys) if first is not None else KindOutcome()
            results, obj = self._run(request, reinvoke_only=True)
            results = [dict(r, round=1) for r in results]
            outcome = self._outcome(request, results, obj)
            outcome.keys = {"kyverno": first[0].keys.get("kyverno", []) + results}
            return outcome
        results, obj = self._run(request)
        outcome = self._outcome(request, results, obj)
        if outcome.object is not UNCHANGED:
            reinvocation.should_reinvoke = True
        reinvocation.values[self.name] = (outcome, obj)
        return outcome

    def _locate_errors(self, results: list[dict]) -> None:
        """A mutation that failed points at its expression in the policy (line and column)."""
        documents = {(e.document.get("kind"), e.name): e.document for e in self.mpol.entries}
        for result in results:
            document = documents.get((result["kind"], result["policy"]))
            for mutation in result["mutations"]:
                if mutation.get("error") and document is not None:
                    where = self.locate(document, path=mutation["path"])
                    mutation["location"] = {k: v for k, v in where.items() if k not in ("kind", "name", "path")}

    def _outcome(self, request: Mapping[str, Any], results: list[dict], obj: Any) -> KindOutcome:
        self._locate_errors(results)
        status = decision(request, results)
        denial = None
        if status is not None:
            denial = Denial(
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status},
                ferricel={"accepted": False, "message": status["message"], "code": status["code"]},
            )
        changed = obj is not request.get("object") and not semantic_equal(obj, request.get("object"))
        changes = [{"policy": r["policy"], "patch": r["patch"]} for r in results if r["patch"]]
        return KindOutcome(
            denial=denial,
            object=obj if changed and denial is None else UNCHANGED,
            changes=changes if denial is None else [],
            keys={"kyverno": results},
        )

    def _run(self, request: Mapping[str, Any], reinvoke_only: bool = False) -> tuple[list[dict], Any]:
        if not reinvoke_only:
            return self.mpol.run(request)
        keep = [e for e in self.mpol.entries if e.compiled and e.compiled[0].reinvocation_policy == "IfNeeded"]
        if not keep:
            return [], request.get("object")
        return self.mpol.run(request, entries=keep)
