"""What Kyverno's CEL libraries read, offline: the CLI's fake context provider (pkg/cel/libs/fake_context.go).

`resource.Get/List` are answered from documents (the project's, or a `kyverno test` context file),
`image.GetMetadata` from image data given in a context file, `globalContext.Get` from named values, and
`http.Get/Post` from mocks keyed `METHOD:url` or `url` (the CLI's mock index). Nothing here talks to a
network or a cluster: an unanswered lookup is an error that says what was missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission.api_versions import split_api_version
from evaluator.k8s.restmapping import builtin_mapper, guess_resource


class LookupError_(Exception):
    """A failed lookup; `not_found` mirrors apierrors.IsNotFound (resource.Get then returns null)."""

    def __init__(self, message: str, *, not_found: bool = False):
        super().__init__(message)
        self.message = message
        self.not_found = not_found


def _group_resource(group: str, resource: str) -> str:
    return f"{resource}.{group}" if group else resource


def resource_for(api_version: str, kind: str, crds: Mapping[tuple[str, str], str] | None = None) -> str:
    """The plural resource of a kind: the built-in REST mapping, a CRD's plural, else Kyverno's guess."""
    group, version = split_api_version(api_version)
    if crds and (group, kind) in crds:
        return crds[(group, kind)]
    info = builtin_mapper().resource_for(api_version, kind)
    if info is not None:
        return info.gvr.resource
    return guess_resource(kind)


@dataclass
class OfflineContext:
    """The data the Kyverno CEL libraries answer from (one per evaluation set, read-only once built)."""

    resources: list[Mapping[str, Any]] = field(default_factory=list)
    images: dict[str, Any] = field(default_factory=dict)
    global_values: dict[str, Any] = field(default_factory=dict)
    http_mocks: dict[str, Any] = field(default_factory=dict)
    crd_plurals: dict[tuple[str, str], str] = field(default_factory=dict)
    _index: dict[tuple[str, str, str], dict[str, dict[str, Mapping]]] | None = None

    def _resources_by_gvr(self) -> dict[tuple[str, str, str], dict[str, dict[str, Mapping]]]:
        if self._index is None:
            index: dict[tuple[str, str, str], dict[str, dict[str, Mapping]]] = {}
            for doc in self.resources:
                if not isinstance(doc, Mapping):
                    continue
                group, version = split_api_version(str(doc.get("apiVersion") or ""))
                plural = resource_for(str(doc.get("apiVersion") or ""), str(doc.get("kind") or ""), self.crd_plurals)
                meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
                by_ns = index.setdefault((group, version, plural), {})
                by_ns.setdefault(str(meta.get("namespace") or ""), {})[str(meta.get("name") or "")] = doc
            self._index = index
        return self._index

    def get_resource(self, api_version: str, resource: str, namespace: str, name: str) -> Mapping:
        group, version = split_api_version(api_version)
        found = self._resources_by_gvr().get((group, version, resource), {}).get(namespace, {}).get(name)
        if found is None:
            raise LookupError_(f'{_group_resource(group, resource)} "{name}" not found', not_found=True)
        return found

    def list_resources(
        self, api_version: str, resource: str, namespace: str, labels: Mapping[str, str] | None = None
    ) -> dict:
        group, version = split_api_version(api_version)
        by_ns = self._resources_by_gvr().get((group, version, resource))
        if by_ns is None:
            raise LookupError_(f"{_group_resource(group, resource)} resource not found")
        items = []
        for obj in by_ns.get(namespace, {}).values():
            obj_labels = (obj.get("metadata") or {}).get("labels") or {}
            if labels and any(obj_labels.get(k) != v for k, v in labels.items()):
                continue
            items.append(obj)
        return {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {}}

    def image_data(self, image: str) -> Any:
        if not self.images:
            raise LookupError_("image data not found in the context")
        if image not in self.images:
            raise LookupError_(f"image data for {image} not found in the context")
        return self.images[image]

    def global_reference(self, name: str, projection: str) -> Any:
        if name not in self.global_values:
            return None
        data = self.global_values[name]
        if projection:
            if isinstance(data, Mapping):
                if projection in data:
                    return data[projection]
                raise LookupError_(f'projection "{projection}" not found in global context entry "{name}"')
            raise LookupError_(
                f'projection "{projection}" not found in global context entry "{name}": stored value is not an object'
            )
        return data

    def http(self, method: str, url: str) -> Any:
        for key in (f"{method}:{url}", url):
            if key in self.http_mocks:
                return self.http_mocks[key]
        raise LookupError_(
            f"no mock for {method} {url}: the playground makes no network calls; add an "
            f"apiCallResponses entry (method {method}, url {url}) to a Values document"
        )


def context_file_data(spec: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], dict[str, Any]]:
    """(resources, images by reference) of a cli.kyverno.io Context's spec: what resource.Get/List and
    image.GetMetadata answer from."""
    resources = [r for r in spec.get("resources") or [] if isinstance(r, Mapping)]
    images = {i["image"]: i for i in spec.get("images") or [] if isinstance(i, Mapping) and "image" in i}
    return resources, images


def http_mock_index(api_call_responses: Any) -> dict[str, Any]:
    """The CLI's mock index from a values file's `apiCallResponses` (body + statusCode, 200 by default)."""
    index: dict[str, Any] = {}
    for entry in api_call_responses or []:
        if not isinstance(entry, Mapping):
            continue
        request = entry.get("request") if isinstance(entry.get("request"), Mapping) else entry
        url = str(request.get("url") or request.get("urlPath") or "")
        if not url:
            continue
        method = str(request.get("method") or "GET").upper()
        response = entry.get("response") if isinstance(entry.get("response"), Mapping) else {}
        body = response.get("body", entry.get("body"))
        status = response.get("statusCode") or response.get("status") or 200
        index[f"{method}:{url}"] = {"body": body, "statusCode": status}
    return index
