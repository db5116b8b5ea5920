"""ValidatingPolicies inside `simulate`: Kyverno's vpol webhooks on the request the validating stage sees.

Built once per document set: policies compiled with their CEL exceptions and autogen variants, and the
offline data Kyverno's libraries read: every other document of the project (resource.Get/List, like the
CLI's fake cluster), a `cli.kyverno.io` Context (spec.resources, spec.images for image.GetMetadata) and a
Values document (`apiCallResponses` mocks for http, `globalContextEntries` for globalContext).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.k8s.namespaces import Namespaces

from . import admission, spec as sp
from .context import OfflineContext, context_file_data, http_mock_index
from .inputs import kubernetes_inputs
from .policies import compile_all, evaluate_request

CLI_GROUP = "cli.kyverno.io/"
_NOT_RESOURCES = frozenset(
    {
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)


def _is_cli(doc: Mapping[str, Any]) -> bool:
    return str(doc.get("apiVersion") or "").startswith(CLI_GROUP)


def _global_value(entry: Mapping[str, Any]) -> Any:
    if "resources" in entry:
        return entry["resources"]
    data = entry.get("data")
    if entry.get("projections"):
        from jmespath import search

        return {
            p.get("name"): search(str(p.get("path") or ""), data)
            for p in entry["projections"]
            if isinstance(p, Mapping)
        }
    return data


def _is_policy_side(doc: Mapping[str, Any]) -> bool:
    """Policies, exceptions and other Kyverno documents: never objects of the fake cluster."""
    if sp.is_validating_policy(doc) or sp.is_cel_exception(doc) or doc.get("kind") in _NOT_RESOURCES:
        return True
    return str(doc.get("apiVersion") or "").startswith(("kyverno.io/", sp.GROUP + "/"))


def _add_cli_document(context: OfflineContext, doc: Mapping[str, Any]) -> None:
    """A Context (resources, images) or Values document (http mocks, global context entries)."""
    spec = doc.get("spec") if isinstance(doc.get("spec"), Mapping) else doc
    if doc.get("kind") == "Context":
        resources, images = context_file_data(spec)
        context.resources.extend(resources)
        context.images.update(images)
    context.http_mocks.update(http_mock_index(spec.get("apiCallResponses") or doc.get("apiCallResponses")))
    for entry in spec.get("globalContextEntries") or doc.get("globalContextEntries") or []:
        if isinstance(entry, Mapping) and entry.get("name"):
            context.global_values[str(entry["name"])] = _global_value(entry)


def _add_crd_plural(context: OfflineContext, crd: Mapping[str, Any]) -> None:
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    context.crd_plurals[(str(spec.get("group") or ""), str(names.get("kind") or ""))] = str(names.get("plural") or "")


def offline_context(documents: list[Mapping[str, Any]]) -> OfflineContext:
    """The fake cluster and CLI data of a document set, in document order."""
    context = OfflineContext()
    for doc in documents:
        if _is_cli(doc):
            _add_cli_document(context, doc)
        elif not _is_policy_side(doc):
            if doc.get("kind") == "CustomResourceDefinition":
                _add_crd_plural(context, doc)
            context.resources.append(doc)
    return context


class VpolStage:
    """Built once per document set; `run` per admission request."""

    def __init__(self, documents: list[Mapping[str, Any]], namespaces: Namespaces | None = None):
        """`namespaces`: the simulation's model of them; by default the Namespace documents among `documents`."""
        docs = [d for d in documents if isinstance(d, Mapping)]
        self.documents = docs
        self.entries = compile_all(docs)
        self.context = offline_context(docs) if self.entries else OfflineContext()
        if namespaces is None:
            namespaces = Namespaces()
            for d in docs:
                if d.get("kind") == "Namespace" and d.get("apiVersion") == "v1":
                    namespaces.setdefault(sp.name_of(d), d)
        self.namespaces = namespaces

    def compile_errors(self, locate: Callable[..., dict] | None = None) -> list[dict[str, Any]]:
        """Compile errors of every policy, and version problems of policies and CEL exceptions, each passed
        through `locate(document, **fields)` (which adds where the document is)."""
        locate = locate or (lambda _doc, **fields: dict(fields))
        out = []
        for doc in self.documents:
            issue = sp.version_issue(doc) if sp.is_validating_policy(doc) or sp.is_cel_exception(doc) else None
            if issue is not None:
                out.append(locate(doc, severity=issue[0], path="apiVersion", message=issue[1]))
        for entry in self.entries:
            for error in entry.compiled[0].errors:  # the policy's own expressions (variants repeat them)
                out.append(locate(entry.document, severity="error", **error))
        return out

    def run(
        self, request: Mapping[str, Any], trace: bool = True
    ) -> tuple[list[dict], dict[str, Any] | None, list[str]]:
        """(per-policy results, the denial status or None, warnings); `trace` adds each policy's expression
        trace (`result["trace"]`)."""
        if not self.entries:
            return [], None, []
        namespace = str(request.get("namespace") or "")
        ns_obj = self.namespaces(namespace)
        inputs = kubernetes_inputs(request, context=self.context, namespaces=self.namespaces, namespace_object=ns_obj)
        results = evaluate_request(self.entries, inputs, admission=True, traced=trace)
        verdict = admission.decision(results, request)
        return results, verdict["status"], verdict["warnings"]
