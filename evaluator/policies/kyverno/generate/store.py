"""The objects a generate rule reads and writes, looked up among the project's documents the way Kyverno's
background controller reads them from the cluster (`client.GetResource` / `ListResource`): by apiVersion
(when given), kind, namespace and name, or by kind, namespace and label selector."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..match import check_selector


@dataclass(frozen=True)
class Target:
    """kyvernov1.ResourceSpec: what a generate pattern names."""

    api_version: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:  # ResourceSpec.String()
        return "/".join((self.api_version, self.kind, self.namespace, self.name))


def _meta(doc: dict) -> dict:
    meta = doc.get("metadata")
    return meta if isinstance(meta, dict) else {}


def kind_of(text: str) -> tuple[str, str]:
    """kubeutils.GetKindFromGVK for a cloneList kind: ("v1", "Secret") from "v1/Secret", ("", "Secret")."""
    parts = text.split("/")
    if len(parts) == 1:
        return "", text
    if len(parts) == 2:
        return (parts[0], parts[1]) if _is_version(parts[0]) else ("", text)
    if len(parts) == 3:
        return (parts[0], parts[1] + "/" + parts[2]) if _is_version(parts[0]) else ("/".join(parts[:2]), parts[2])
    if len(parts) == 4:
        return "/".join(parts[:2]), "/".join(parts[2:])
    return "", ""


def _is_version(text: str) -> bool:
    import re

    return re.fullmatch(r"v\d+((alpha|beta)\d+)?", text) is not None


class Store:
    """The documents a generation runs against; writes are kept so later rules see earlier ones."""

    def __init__(self, documents: list) -> None:
        self.documents = [d for d in documents if isinstance(d, dict)]

    def _selected(self, doc: dict, api_version: str, kind: str, namespace: str) -> bool:
        if doc.get("kind") != kind or (api_version and doc.get("apiVersion") != api_version):
            return False
        ns = _meta(doc).get("namespace") or ""
        return ns == namespace or (not ns and namespace == "default")

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict | None:
        for doc in self.documents:
            if _meta(doc).get("name") == name and self._selected(doc, api_version, kind, namespace):
                return copy.deepcopy(doc)
        return None

    def select(self, api_version: str, kind: str, namespace: str, selector: dict | None) -> list[dict]:
        out = []
        for doc in self.documents:
            if not self._selected(doc, api_version, kind, namespace):
                continue
            if selector and not check_selector(selector, _meta(doc).get("labels") or {})[0]:
                continue
            out.append(copy.deepcopy(doc))
        return out

    def with_labels(self, labels: dict) -> list[dict]:
        """Objects carrying every label of `labels` (common.FindDownstream)."""
        return [
            copy.deepcopy(d)
            for d in self.documents
            if all((_meta(d).get("labels") or {}).get(k) == v for k, v in labels.items())
        ]

    def put(self, obj: dict) -> None:
        meta = _meta(obj)
        key = (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace") or "", meta.get("name"))
        self.documents = [
            d
            for d in self.documents
            if (d.get("apiVersion"), d.get("kind"), _meta(d).get("namespace") or "", _meta(d).get("name")) != key
        ]
        self.documents.append(copy.deepcopy(obj))
