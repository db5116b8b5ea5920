"""A DeletingPolicy's next run over the project's documents, without deleting anything: per policy, when it
runs next (`spec.schedule` after `now`) and, for every object its matchConstraints select, whether that run
deletes it and why (`result["deletions"]`, see evaluator/SCHEMA.md).

The objects are the project's other documents (what resource.Get/List also answer from); a
NamespacedDeletingPolicy only sees objects of its own namespace. Namespaces for namespaceSelector and
`namespaceObject` are the project's Namespace documents (else one labelled kubernetes.io/metadata.name).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from evaluator.policies.kyverno_vpol.compiler import located_problems
from evaluator.admission.cluster import name_of
from evaluator.k8s.kinds import KYVERNO_DELETING_POLICY_KINDS
from evaluator.policies.kyverno_vpol import spec as sp
from evaluator.policies.kyverno_vpol.stage import offline_context

from .engine import DELETE, ERROR, NOT_SELECTED, CompiledDeletingPolicy, admission_errors, compile_policy, evaluate
from .schedule import ScheduleError, next_run


def is_deleting_policy(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and doc.get("kind") in KYVERNO_DELETING_POLICY_KINDS
        and sp.api_group(doc)[0] == sp.GROUP
    )


def _ref(obj: Mapping[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj.get("kind") or ""),
        "namespace": str(meta.get("namespace") or ""),
        "name": str(meta.get("name") or ""),
    }


class DeletingPolicies:
    """The deleting policies of one document set, compiled once; `run(now)` per instant."""

    def __init__(self, documents: list[Mapping[str, Any]]):
        docs = [d for d in documents if isinstance(d, Mapping)]
        exceptions = [d for d in docs if sp.is_cel_exception(d)]
        self.policies: list[CompiledDeletingPolicy] = []
        self.refused: dict[int, str] = {}  # id(document) -> why it cannot run (API version)
        for doc in docs:
            if not is_deleting_policy(doc):
                continue
            issue = sp.version_issue(doc)
            compiled = compile_policy(doc, exceptions)
            if issue is not None and issue[0] == "error":
                compiled.error = issue[1]
            self.policies.append(compiled)
        self.context = offline_context(docs) if self.policies else None
        self.namespaces = {name_of(d): d for d in docs if d.get("kind") == "Namespace" and d.get("apiVersion") == "v1"}

    def problems(self, locate: Callable[..., dict[str, Any]]) -> list[dict[str, Any]]:
        """Version problems, compile errors and what Kyverno's admission check refuses, each located."""
        return located_problems(self.policies, admission_errors, locate)

    def run(self, now: dt.datetime) -> list[dict[str, Any]]:
        return [self._policy(compiled, now) for compiled in self.policies]

    def _policy(self, compiled: CompiledDeletingPolicy, now: dt.datetime) -> dict[str, Any]:
        spec = compiled.spec
        entry: dict[str, Any] = {
            "kind": compiled.document.get("kind"),
            "apiVersion": compiled.document.get("apiVersion"),
            "policy": compiled.name,
            "namespace": compiled.namespace,
            "schedule": str(spec.get("schedule") or ""),
            "now": now.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z"),
            "nextRun": None,
            "deletionPropagationPolicy": spec.get("deletionPropagationPolicy") or "",
            "objects": [],
        }
        try:
            entry["nextRun"] = next_run(entry["schedule"], now).isoformat().replace("+00:00", "Z")
        except ScheduleError as err:
            entry["error"] = f"the schedule {entry['schedule']!r} is not a cron expression: {err}"
        if compiled.error is not None:
            entry["error"] = compiled.error
            return entry
        assert self.context is not None
        for obj in self.context.resources:
            ref = _ref(obj)
            if compiled.namespace and ref["namespace"] != compiled.namespace:
                continue
            verdict = evaluate(compiled, obj, self.context, self.namespaces)
            if verdict.result == NOT_SELECTED:
                continue
            item: dict[str, Any] = {**ref, "result": verdict.result, "reason": verdict.reason}
            if verdict.exceptions:
                item["exceptions"] = verdict.exceptions
            entry["objects"].append(item)
        entry["deletes"] = sum(1 for o in entry["objects"] if o["result"] == DELETE)
        entry["errors"] = sum(1 for o in entry["objects"] if o["result"] == ERROR)
        return entry
