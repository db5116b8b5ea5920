"""MutatingPolicies inside `simulate`: Kyverno's mpol / nmpol mutating webhooks on one admission request.

Built once per document set: policies compiled with their CEL exceptions and autogen variants, and the offline
data Kyverno's libraries read (the ValidatingPolicy stage's: the project's other documents as the fake
cluster, a cli.kyverno.io Context and Values). The verdict is worded as the mpol webhook handler words it
(pkg/webhooks/resource/mpol/handler.go admissionResponse): an `error` rule of a policy with failurePolicy Fail
denies with `Resource: <ns>/<name>, Kind: <kind>, Errors: [Policy <name>: <message> ...]`, under the
webhook `mpol.validate.kyverno.svc-fail` (`nmpol.…` for NamespacedMutatingPolicies); the API server answers
a webhook denial without a code with 400 and `admission webhook "<name>" denied the request: <message>`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.policies.kyverno_vpol.context import OfflineContext
from evaluator.policies.kyverno_vpol.inputs import kubernetes_inputs
from evaluator.policies.kyverno_vpol.stage import offline_context
from evaluator.k8s.object_schema import schema_for

from evaluator.admission.cluster import name_of
from evaluator.k8s.namespaces import Namespaces

from . import spec as sp
from .policies import PolicyEntry, compile_all, run_all

WEBHOOKS = {"MutatingPolicy": "mpol.validate.kyverno.svc", "NamespacedMutatingPolicy": "nmpol.validate.kyverno.svc"}
MUTATING_OPERATIONS = ("CREATE", "UPDATE", "CONNECT")


def webhook_name(result: Mapping[str, Any]) -> str:
    suffix = "-ignore" if result.get("failurePolicy") == "Ignore" else "-fail"
    return WEBHOOKS.get(str(result.get("kind")), WEBHOOKS["MutatingPolicy"]) + suffix


def decision(request: Mapping[str, Any], results: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The API server's status for a denial (None: allowed)."""
    errors: list[str] = []
    webhook = ""
    for result in results:
        if result.get("failurePolicy") != "Fail":
            continue
        for rule in result.get("rules") or []:
            if rule.get("result") == "error":
                webhook = webhook or webhook_name(result)
                errors.append(f"Policy {result['policy']}: {rule.get('message', '')}")
    if not errors:
        return None
    kind = (request.get("kind") or {}).get("kind", "") if isinstance(request.get("kind"), Mapping) else ""
    text = (
        f"Resource: {request.get('namespace') or ''}/{request.get('name') or ''}, Kind: {kind}, "
        f"Errors: [{' '.join(errors)}]"
    )
    message = f'admission webhook "{webhook}" denied the request: {text}'
    return {"code": 400, "reason": "", "message": message}


class MpolStage:
    """Built once per document set; `run` per admission request."""

    def __init__(self, documents: list[Mapping[str, Any]], namespaces: Namespaces | None = None):
        """`namespaces`: the simulation's model of them; by default the Namespace documents among `documents`."""
        docs = [d for d in documents if isinstance(d, Mapping)]
        self.documents = docs
        self.entries = compile_all(docs)
        self.context = offline_context(docs) if self.entries else OfflineContext()
        self.crds = [d for d in docs if d.get("kind") == "CustomResourceDefinition"]
        if namespaces is None:
            namespaces = Namespaces()
            for d in docs:
                if d.get("kind") == "Namespace" and d.get("apiVersion") == "v1":
                    namespaces.setdefault(name_of(d), d)
        self.namespaces = namespaces

    def compile_errors(self, locate: Callable[..., dict] | None = None) -> list[dict[str, Any]]:
        """Version problems and compile errors of every policy, each through `locate(document, **fields)`."""
        locate = locate or (lambda _doc, **fields: dict(fields))
        out = []
        for doc in self.documents:
            issue = sp.version_issue(doc) if sp.is_mutating_policy(doc) else None
            if issue is not None:
                out.append(locate(doc, severity=issue[0], path="apiVersion", message=issue[1]))
        for entry in self.entries:
            for error in entry.compiled[0].errors:
                out.append(locate(entry.document, severity="error", **error))
        return out

    def run(
        self, request: Mapping[str, Any], *, admission: bool = True, entries: list[PolicyEntry] | None = None
    ) -> tuple[list[dict], Any]:
        """(per-policy results, the object after every policy, or after `entries` only) for one request."""
        entries = self.entries if entries is None else entries
        obj = request.get("object")
        if not entries or not isinstance(obj, Mapping):
            return [], obj
        if admission and str(request.get("operation") or "") not in MUTATING_OPERATIONS:
            return [], obj
        namespace = str(request.get("namespace") or (obj.get("metadata") or {}).get("namespace") or "")
        ns_obj = self.namespaces(namespace)
        inputs = kubernetes_inputs(request, context=self.context, namespaces=self.namespaces, namespace_object=ns_obj)
        objschema = schema_for(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""), self.crds)
        return run_all(entries, inputs, objschema, admission=admission)
