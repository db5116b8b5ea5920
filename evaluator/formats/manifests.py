"""A manifest bundle: multi-document YAML or JSON, `kubectl get -o yaml` Lists included.

Import: policies, bindings, their params, namespaces, RBAC and CRDs become documents; every other object
becomes a request (a CREATE of it) with no expected outcome. Export: the documents, then the request
objects, as one `---` stream; a request that is not a plain object (an AdmissionReview) cannot be a
manifest and is reported in the warnings instead."""

from __future__ import annotations

from evaluator.formats.bounded_yaml import FormatError, dump_all
from evaluator.formats.objects import (
    document_name,
    is_cluster_state,
    is_object,
    object_text,
    objects_of,
    param_names,
    plain_object,
    request_name,
)


def import_bundle(text: str, title: str = "Imported manifests", source: str = "manifests.yaml") -> dict:
    docs = objects_of(text, source)
    if not docs:
        raise FormatError(f"{source}: no object in this bundle")
    bad = [i for i, d in enumerate(docs) if not is_object(d)]
    if bad:
        raise FormatError(f"{source}: document {bad[0] + 1} is not a Kubernetes object (apiVersion and kind)")
    params = param_names(docs)
    documents = [{"name": document_name(d), "text": object_text(d)} for d in docs if is_cluster_state(d, params)]
    requests = [
        {"name": request_name(d), "text": object_text(d), "expected": None}
        for d in docs
        if not is_cluster_state(d, params)
    ]
    return {"title": title, "description": f"Imported from {source}", "documents": documents, "requests": requests}


def export_bundle(project: dict) -> tuple[str, list[str]]:
    """(the bundle, warnings about what could not be written)."""
    objects, warnings = [], []
    for doc in project.get("documents", []):
        objects.extend(objects_of(doc["text"], doc["name"]))
    for request in project.get("requests", []):
        obj = plain_object(request["text"], request["name"])
        if obj is None:
            warnings.append(f"request {request['name']!r} is not a plain object and is left out")
        else:
            objects.append(obj)
    return dump_all(objects), warnings
