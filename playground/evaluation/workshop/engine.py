"""The engine part of a workshop evaluation: pure functions of plain data, no database and no models.

Kept apart so evaluation workers (playground/evaluation) can import it without setting Django's apps up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from evaluator.cel.library import load_all as load_cel_library
from evaluator.policies import load_kinds
from playground.evaluation import service as evaluation
from playground.core.expectations import actual_outcome, result_message
from playground.evaluation.workshop.checks import judge, student_progress
from playground.evaluation.workshop.diagnosis import diagnose


@dataclass
class Context:
    code: str
    participant_id: int
    participant_name: str
    exercise_id: int
    checks: list[dict]
    state: dict  # the fork's project state
    submitted: bool


def _request_entry(entry: dict) -> dict:
    """A sample request of the fork as the playground shows it (decision, kubectl text, tuples, trace), with
    the one-line outcome and message the check list uses."""
    result = entry["result"]
    return {**entry, "outcome": actual_outcome(result), "message": result_message(result)}


def evaluate(ctx: Context) -> dict:
    """Engine work (a job of the evaluation workers): the fork's results and every check's verdict."""
    started = time.perf_counter()
    state = ctx.state
    loaded = evaluation.load_documents(evaluation.named_texts(state["documents"]))
    requests = [
        _request_entry(
            evaluation.request_entry(request, evaluation.run_request(loaded, request["text"], request.get("name")))
        )
        for request in state["requests"]
    ]
    checks = []
    for check in ctx.checks:
        result = evaluation.run_request(loaded, check["text"])
        verdict, explanation = judge(check["expected"], result)
        checks.append(
            {
                "name": check["name"],
                "title": check.get("title") or check["name"],
                "hidden": bool(check.get("hidden")),
                "showExpected": bool(check.get("showExpected")),
                "verdict": verdict,
                "outcome": actual_outcome(result),
                "message": result_message(result),
                "explanation": explanation,
            }
        )
    documents = evaluation.documents_entry(state["documents"], loaded)
    return {
        "version": state["version"],
        "documents": documents,
        "errors": loaded.general_errors,
        "requests": requests,
        "checks": checks,
        "typecheck": loaded.typecheck(),  # the playground's type checks (~1 ms after an edit: cached per policy)
        "diagnosis": diagnose(documents, loaded.general_errors),
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }


def preview(ctx: Context, checks: list[dict], version: int) -> dict:
    """The student's view of a fresh evaluation before it is stored (the student need not wait for the write)."""
    return {
        "exercise": ctx.exercise_id,
        "version": version,
        "submitted": ctx.submitted,
        **student_progress(checks, ctx.submitted),
    }


_WARM_UP_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: warm-up}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: warm-up}
spec: {policyName: warm-up, validationActions: [Deny]}
"""
_WARM_UP_REQUEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: warm-up, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec: {containers: [{name: w, image: nginx}]}
"""
_WARM_UP_KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: warm-up}
spec:
  rules:
  - name: warm-up
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      message: "replicas of {{ request.object.metadata.name }}"
      pattern: {spec: {replicas: "<=5"}}
"""


def warm_up() -> None:
    """Load the engine's lazy parts (every policy kind, schemas, CEL library, type checker) once per worker,
    before it takes real work, so a room's first evaluation is as quick as its second. A simulation imports
    only the policy packages its documents need (evaluator.policies.load_kinds), so the warm-up imports them
    all first: the first Kyverno or CRD project a worker sees must not pay for the imports."""
    load_kinds()
    load_cel_library()  # each CEL library module is otherwise imported by the first expression naming it
    for documents in (_WARM_UP_POLICY, _WARM_UP_KYVERNO):
        loaded = evaluation.load_documents([documents])
        evaluation.run_request(loaded, _WARM_UP_REQUEST)
        loaded.typecheck()


def ready() -> bool:
    return True
