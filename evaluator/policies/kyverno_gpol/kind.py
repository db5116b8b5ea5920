"""Kyverno GeneratingPolicy / NamespacedGeneratingPolicy as a policy kind of the admission core: Kyverno's gpol
webhook, after its vpol webhooks. It never denies: Kyverno generates in the background once the request is
admitted. Each policy gives one entry in `result["kyverno"]` (after the ClusterPolicy and ValidatingPolicy
entries) with a `generate` list shaped like a ClusterPolicy generate rule's (`evaluator/SCHEMA.md`), so the
page shows the objects the same way: every object with the labels Kyverno's context provider adds, `create`
when the project has no object of that identity, `update` when it has one.

A policy runs when `evaluation.admission.enabled` (default true) and, for a NamespacedGeneratingPolicy, on
requests of its own namespace. Compile errors, API versions the CRD does not serve and what Kyverno's
admission check refuses are located errors of the policy's document; the other policies still run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from evaluator.policies.kyverno_vpol.compiler import located_problems
from evaluator.admission.cluster import metadata, name_of
from evaluator.admission.policy_kind import VALIDATING, KindOutcome, RequestContext, Setup, register
from evaluator.k8s.kinds import KYVERNO_GENERATING_POLICY
from evaluator.policies.kyverno_vpol import spec as sp
from evaluator.policies.kyverno_vpol.cli_test import namespaced
from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.engine import Inputs, match_constraints
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs
from evaluator.policies.kyverno_vpol.stage import offline_context

from .engine import (
    ERROR,
    CompiledGeneratingPolicy,
    Generated,
    admission_errors,
    compile_policy,
    is_generating_policy,
    run,
)
from . import policy_events
from .labels import (
    POLICY_LABEL,
    TRIGGER_KIND_LABEL,
    TRIGGER_NAME_LABEL,
    TRIGGER_NAMESPACE_LABEL,
    downstream_labels,
)


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return (
        str(obj.get("apiVersion") or ""),
        str(obj.get("kind") or ""),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


def _lists_delete(compiled: CompiledGeneratingPolicy) -> bool:
    """Whether a resource rule names DELETE (then a deletion generates, as any other operation)."""
    rules = (compiled.match_constraints or {}).get("resourceRules")
    return any(
        isinstance(r, Mapping) and isinstance(r.get("operations"), list) and "DELETE" in r["operations"]
        for r in (rules if isinstance(rules, list) else [])
    )


class GeneratingPolicies:
    """The generating policies of one document set, compiled once; `run` per request."""

    def __init__(self, documents: list[Mapping[str, Any]], locate: Callable[..., dict[str, Any]] | None = None):
        self.locate = locate
        docs = [d for d in documents if isinstance(d, Mapping)]
        exceptions = self.exceptions = [d for d in docs if sp.is_cel_exception(d)]
        self.policies: list[CompiledGeneratingPolicy] = []
        for doc in docs:
            if not is_generating_policy(doc):
                continue
            compiled = compile_policy(doc, exceptions)
            issue = sp.version_issue(doc)
            if issue is not None and issue[0] == "error":
                compiled.error = issue[1]
            self.policies.append(compiled)
        self.documents = docs
        self._context: OfflineContext | None = None
        self._existing: set[tuple[str, str, str, str]] | None = None
        self.crd_scopes = {
            (
                str((d.get("spec") or {}).get("group") or ""),
                str(((d.get("spec") or {}).get("names") or {}).get("kind") or ""),
            ): ((d.get("spec") or {}).get("scope") != "Cluster")
            for d in docs
            if d.get("kind") == "CustomResourceDefinition"
        }
        self.namespaces = {name_of(d): d for d in docs if d.get("kind") == "Namespace" and d.get("apiVersion") == "v1"}

    @property
    def context(self) -> OfflineContext:
        """The project's other documents and CLI data (built on first use)."""
        if self._context is None:
            self._context = offline_context(self.documents)
        return self._context

    def problems(self, locate: Callable[..., dict[str, Any]]) -> list[dict[str, Any]]:
        return located_problems(self.policies, admission_errors, locate)

    def existing_identities(self) -> set[tuple[str, str, str, str]]:
        """(apiVersion, kind, namespace, name) of the project's objects: what a generated object updates."""
        if self._existing is None:
            self._existing = {_identity(d) for d in self.context.resources}
        return self._existing

    def _namespaced(self, api_version: str, kind: str) -> bool:
        return namespaced({"apiVersion": api_version, "kind": kind}, self.crd_scopes)

    def policy_event(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """The result of a request that creates, updates or deletes a GeneratingPolicy (see policy_events)."""
        found = policy_events.policy_in(request)
        if found is None:
            return None
        policy, op = found
        compiled = policy_events.compile_requested(policy, self.exceptions)
        if compiled.error is not None:
            return None  # the policy's own errors are its document's (when it is one of the project's)
        if op == "DELETE":
            return policy_events.deleted(compiled, self.context.resources)
        return policy_events.applied(compiled, self.context.resources, self._background_create)

    def _background_create(
        self, compiled: CompiledGeneratingPolicy, doc: Mapping[str, Any]
    ) -> tuple[Generated, list[dict[str, Any]]]:
        request = {"operation": "CREATE", "object": doc, "namespace": str(metadata(doc).get("namespace") or "")}
        inputs = kubernetes_inputs(request, context=self.context, namespaces=self.namespaces)
        generated = run(compiled, inputs, self._namespaced)
        result = self._result(compiled, generated, doc, inputs, compiled.settings())
        return generated, [o for rule in result["generate"] for o in rule["objects"]]

    def run(self, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        event = self.policy_event(request)
        if not self.policies:
            return [event] if event else []
        namespace = str(request.get("namespace") or "")
        inputs = kubernetes_inputs(request, context=self.context, namespaces=self.namespaces)
        trigger = inputs.object if isinstance(inputs.object, Mapping) else inputs.old_object
        out = []
        for compiled in self.policies:
            settings = compiled.settings()
            if not settings["admission"] or (compiled.namespace and compiled.namespace != namespace):
                continue
            if request.get("dryRun"):
                generated = Generated(None)  # Kyverno's gpol webhook returns at once on a dry-run request
            elif inputs.request and inputs.request.get("operation") == "DELETE" and not _lists_delete(compiled):
                generated = self._trigger_deleted(compiled, inputs, trigger, settings["synchronize"])
            else:
                generated = run(compiled, inputs, self._namespaced)
            out.append(self._result(compiled, generated, trigger, inputs, settings))
        return ([event] if event else []) + out

    def _trigger_deleted(
        self, compiled: CompiledGeneratingPolicy, inputs: Inputs, trigger: Any, synchronize: bool
    ) -> Generated:
        """A trigger deleted under a policy whose rules do not list DELETE: with synchronize, Kyverno deletes
        the downstream it generated for that trigger (the objects labelled with the policy and the trigger);
        without, nothing happens."""
        if not synchronize or not isinstance(trigger, Mapping) or inputs.match_request is None:
            return Generated(None)
        as_created = replace(inputs, match_request={**inputs.match_request, "operation": "CREATE", "object": trigger})
        matched, _ = match_constraints(compiled, as_created)  # type: ignore[arg-type]
        if not matched:
            return Generated(None)
        request = inputs.request or {}
        want = {
            POLICY_LABEL: compiled.name,
            TRIGGER_NAME_LABEL: str(request.get("name") or ""),
            TRIGGER_NAMESPACE_LABEL: str(metadata(trigger).get("namespace") or ""),
            TRIGGER_KIND_LABEL: str((request.get("kind") or {}).get("kind") or ""),
        }
        downstream = []
        for doc in self.context.resources:
            labels = metadata(doc).get("labels")
            if isinstance(labels, Mapping) and all(labels.get(k) == v for k, v in want.items()):
                downstream.append(dict(doc))
        return Generated(
            "pass",
            f"trigger deleted: synchronize deletes the {len(downstream)} downstream object(s) generated for it",
            downstream,
        )

    def _result(
        self,
        compiled: CompiledGeneratingPolicy,
        generated: Generated,
        trigger: Any,
        inputs: Inputs,
        settings: dict[str, bool],
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "kind": compiled.document.get("kind"),
            "apiVersion": compiled.document.get("apiVersion"),
            "policy": compiled.name,
            "namespace": compiled.namespace,
            "evaluation": settings,
            "rules": [],
            "notApplicable": [],
            "generate": [],
        }
        if generated.result is None:
            result["notApplicable"].append(compiled.name)
            return result
        objects = []
        deleting = (inputs.request or {}).get("operation") == "DELETE" and not _lists_delete(compiled)
        for obj in generated.objects:
            if deleting:
                objects.append(
                    {
                        "action": "delete",
                        "role": "downstream",
                        "policy": compiled.name,
                        "rule": compiled.name,
                        "object": obj,
                    }
                )
                continue
            labels = obj.setdefault("metadata", {}).setdefault("labels", {})
            if isinstance(labels, dict):
                labels.update(downstream_labels(compiled.name, trigger or {}, inputs.request or {}))
            action = "update" if _identity(obj) in self.existing_identities() else "create"
            objects.append(
                {"action": action, "role": "downstream", "policy": compiled.name, "rule": compiled.name, "object": obj}
            )
        entry: dict[str, Any] = {
            "rule": compiled.name,
            "result": generated.result,
            "message": generated.message,
            "triggerResult": generated.result,
            "objects": objects,
        }
        path = compiled.errors[0]["path"] if compiled.errors else generated.path
        if generated.result == ERROR and path and self.locate is not None:
            entry["location"] = self.locate(compiled.document, severity="error", path=path, message=generated.message)
        if generated.audit_annotations:
            entry["auditAnnotations"] = generated.audit_annotations
        if generated.exceptions:
            entry["exceptions"] = generated.exceptions
        result["generate"].append(entry)
        return result


@register
class KyvernoGeneratingPolicies:
    name = KYVERNO_GENERATING_POLICY
    stage = VALIDATING
    order = 220  # Kyverno's gpol webhook, after its resource (200) and vpol (210) webhooks
    result_keys: Mapping[str, Any] = {"kyverno": []}

    def __init__(self) -> None:
        self.policies = GeneratingPolicies([])
        self.active = False
        self.idle = False

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.policies = GeneratingPolicies(setup.documents, setup.locate)
        self.active = bool(self.policies.policies)
        self.idle = False  # a request may create or delete a GeneratingPolicy (policy events) in any project
        return self.policies.problems(lambda document, **fields: setup.locate(document, **fields))

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        try:
            results = self.policies.run(request)
        except Exception as err:  # a defect must come out as data, never as a crash
            results = [
                {
                    "kind": KYVERNO_GENERATING_POLICY,
                    "policy": "",
                    "rules": [],
                    "notApplicable": [],
                    "generate": [
                        {
                            "rule": "",
                            "result": ERROR,
                            "message": f"internal error: {type(err).__name__}: {err}",
                            "objects": [],
                        }
                    ],
                }
            ]
        return KindOutcome(keys={"kyverno": results})
