"""Kyverno MutatingPolicy / NamespacedMutatingPolicy as a policy kind of the admission core: Kyverno's mpol and
nmpol mutating webhooks, after the MutatingAdmissionPolicy plugin and the other mutating webhooks.

Each request runs every policy in document order (`MpolStage.run`); the results join `result["kyverno"]`
(with `mutations`, `patch`, `patchedObject` per policy), the mutated object goes on to schema validation and
the validating kinds, and each policy's change is a `mutationPhases` entry (phase "MutatingPolicy"). A policy
that errors under failurePolicy Fail denies the request (`stage.decision`). reinvocationPolicy IfNeeded: when a
later mutating kind changed the object, the policies asking for it run once more on the reinvocation round.
A MutatingPolicy with `autogen.mutatingAdmissionPolicy.enabled` also gets the MutatingAdmissionPolicy and binding
Kyverno generates from it (map_generation), run as a simulation of its own on the object the policy received,
so `result["kyvernoGeneratedMAPs"]` shows both patches and whether they agree.
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
from evaluator.cel.versions import active_version
from evaluator.k8s.kinds import KYVERNO_MUTATING_POLICY
from evaluator.policies.mutating.diff import semantic_equal

from . import map_generation
from .stage import MpolStage, decision


def refused(simulation: Any) -> list[dict[str, Any]]:
    """What the API server says about the generated MAP and binding (the first two documents of the nested
    simulation): `{severity, kind, name, path, text}`, e.g. a policy without resourceRules refused on create."""
    keep = ("severity", "kind", "name", "path", "text")
    return [{k: e.get(k) for k in keep} for e in simulation.errors if e.get("document") in (0, 1)]


@register
class KyvernoMutatingPolicies:
    name = KYVERNO_MUTATING_POLICY
    phase = "MutatingPolicy"
    stage = MUTATING
    order = 210  # Kyverno's mpol webhooks, after the MutatingAdmissionWebhook configurations (200)
    result_keys: Mapping[str, Any] = {"kyverno": [], "kyvernoGeneratedMAPs": []}
    reinvocable = True

    def __init__(self) -> None:
        self.mpol = MpolStage([])
        self.locate: Callable[..., dict[str, Any]] = lambda document, **fields: dict(fields)
        self.active = False
        self.idle = False
        self._nested: Any = None
        self._version: str | None = None
        self._generated: list[tuple[str, dict, Any]] | None = None

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.mpol = MpolStage(setup.documents, setup.cluster.namespaces)
        self.locate = setup.locate
        self.active = bool(self.mpol.entries)
        self.idle = not self.mpol.entries
        self._nested = setup.nested
        self._version = active_version()
        self._generated = None
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
            outcome.keys = {
                "kyverno": first[0].keys.get("kyverno", []) + results,
                "kyvernoGeneratedMAPs": first[0].keys.get("kyvernoGeneratedMAPs", []),
            }
            return outcome
        results, obj = self._run(request)
        outcome = self._outcome(request, results, obj)
        outcome.keys["kyvernoGeneratedMAPs"] = self.compare_generated(request, results)
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

    def generated_maps(self) -> list[tuple[str, dict, Any]]:
        """(policy name, the generated MAP and binding or the skip reason, a simulation of them or None) for each
        MutatingPolicy asking for one (autogen.mutatingAdmissionPolicy.enabled), built once."""
        if self._generated is None:
            docs = self.mpol.documents
            kept = [d for d in docs if not map_generation.is_admission_policy(d)]
            self._generated = []
            for entry in self.mpol.entries:
                if entry.document.get("kind") != "MutatingPolicy" or not map_generation.requested(entry.spec):
                    continue
                generated = map_generation.generate(entry.document, docs, self._version)
                simulation = None
                if "policy" in generated and self._nested is not None:
                    simulation = self._nested(
                        [generated["policy"], generated["binding"], *kept], kubernetes_version=self._version
                    )
                self._generated.append((entry.name, generated, simulation))
        return self._generated

    def compare_generated(self, request: Mapping[str, Any], results: list[dict]) -> list[dict[str, Any]]:
        """Each generated MAP run on the object its MutatingPolicy received: its patch and object beside the
        policy's, and whether both leave the same object."""
        out: list[dict[str, Any]] = []
        # what each policy received: the object the policies before it left
        received_by: dict[str, tuple[Any, dict]] = {}
        current = request.get("object")
        for result in results:
            if result.get("kind") == "MutatingPolicy":
                received_by.setdefault(result["policy"], (current, result))
            if result.get("patchedObject") is not None:
                current = result["patchedObject"]
        for name, generated, simulation in self.generated_maps():
            if simulation is None:  # skipped, or generated where no nested simulation can run it
                out.append({"policy": name, "kind": "MutatingPolicy", **generated})
                continue
            received, own = received_by.get(name, (request.get("object"), None))
            verdict = simulation.run(dict(request, object=received), trace=False, full=False)
            map_object = verdict["patchedObject"] if verdict["patchedObject"] is not None else received
            policy_object = own["patchedObject"] if own and own["patchedObject"] is not None else received
            out.append(
                {
                    "policy": name,
                    "kind": "MutatingPolicy",
                    "generated": generated,
                    "allowed": verdict["allowed"],
                    "status": verdict["status"],
                    "warnings": verdict["warnings"],
                    "patch": (verdict["mutation"] or {}).get("patch") or [],
                    "patchedObject": verdict["patchedObject"],
                    "policyPatch": own["patch"] if own else [],
                    "errors": refused(simulation),
                    "agrees": verdict["allowed"] and semantic_equal(map_object, policy_object),
                }
            )
        return out
