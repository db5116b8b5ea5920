"""REST mapping: kinds <-> resources, scope, subresources, and equivalent resources.

The API server knows, for each group/version/resource (+ subresource), the kind it serves and which
other resources share its storage; ``matchPolicy: Equivalent`` and request inference need the same
knowledge. ``builtin_mapper()`` holds every built-in type (see ``builtin_resources`` for the source);
``RESTMapper.with_crds`` adds CustomResourceDefinitions from the user's documents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from evaluator.k8s import builtin_resources


def parse_group_version(api_version: str) -> tuple[str, str] | None:
    """apimachinery's ``schema.ParseGroupVersion``: "" and "/" are empty, "v1" is the core group, more than one
    "/" is an error (None)."""
    if api_version in ("", "/"):
        return "", ""
    count = api_version.count("/")
    if count == 0:
        return "", api_version
    if count == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return None


def _strings(data: Any, first: str, second: str, third: str) -> tuple[str, str, str]:
    """Three fields of a request's kind or resource map, "" where absent (anything but a map has none)."""
    data = data if (type(data) is dict or isinstance(data, Mapping)) else {}
    return str(data.get(first) or ""), str(data.get(second) or ""), str(data.get(third) or "")


@dataclass(frozen=True, order=True)
class GVK:
    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def to_dict(self) -> dict:
        return {"group": self.group, "version": self.version, "kind": self.kind}

    @classmethod
    def from_dict(cls, data: Mapping | None) -> "GVK":
        return cls(*_strings(data, "group", "version", "kind"))

    @property
    def empty(self) -> bool:
        return not (self.group or self.version or self.kind)


@dataclass(frozen=True, order=True)
class GVR:
    group: str
    version: str
    resource: str

    def to_dict(self) -> dict:
        return {"group": self.group, "version": self.version, "resource": self.resource}

    @classmethod
    def from_dict(cls, data: Mapping | None) -> "GVR":
        return cls(*_strings(data, "group", "version", "resource"))

    def __str__(self) -> str:
        # schema.GroupVersionResource.String(): "group/version, Resource=resource"
        return f"{self.group}/{self.version}, Resource={self.resource}"


@dataclass(frozen=True)
class ResourceInfo:
    """One servable endpoint: a resource (``subresource == ""``) or one of its subresources."""

    gvr: GVR
    subresource: str
    kind: GVK
    namespaced: bool
    served: bool = True
    source: str = "builtin"  # builtin | crd | custom

    @property
    def scope(self) -> str:
        return "Namespaced" if self.namespaced else "Cluster"


def parse_api_version(api_version: Any) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: "v1" -> ("", "v1"), "apps/v1" -> ("apps", "v1"); None when malformed."""
    if not isinstance(api_version, str) or not api_version:
        return None
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2 and parts[1]:
        return parts[0], parts[1]
    return None


def guess_resource(kind: str) -> str:
    """kubectl's ``UnsafeGuessKindToResource`` for kinds the mapping does not know."""
    singular = kind.lower()
    if not singular:
        return ""
    if singular.endswith("s"):
        return singular + "es"
    if singular.endswith("y"):
        return singular[:-1] + "ies"
    return singular + "s"


def _default_identity(gvr: GVR) -> tuple[str, str]:
    return _COHABITATING.get((gvr.group, gvr.resource), (gvr.group, gvr.resource))


_COHABITATING = {
    (other_group, other_resource): (group, resource)
    for group, resource, other_group, other_resource in builtin_resources.COHABITATING
}


@dataclass
class RESTMapper:
    """Lookups over a list of ``ResourceInfo`` entries (kept in registration order)."""

    entries: list[ResourceInfo]
    identity: Callable[[GVR], Any] = _default_identity
    _by_endpoint: dict = field(init=False, repr=False)
    _by_kind: dict = field(init=False, repr=False)
    _by_identity: dict = field(init=False, repr=False)
    # What users of this mapping derive from it, keyed by their own tuples (request inference's answers per
    # apiVersion and kind): true for as long as the mapping, which never changes once built.
    memo: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.memo = {}
        self._by_endpoint = {}
        self._by_kind = {}
        self._by_identity = {}
        for info in self.entries:
            self._by_endpoint.setdefault((info.gvr, info.subresource), info)
            if not info.subresource:
                self._by_kind.setdefault(info.kind, info)
                self._by_identity.setdefault(self.identity(info.gvr), []).append(info.gvr)

    # --- lookups -------------------------------------------------------------------------------
    def info(self, gvr: GVR, subresource: str = "") -> ResourceInfo | None:
        return self._by_endpoint.get((gvr, subresource or ""))

    def kind_for(self, gvr: GVR, subresource: str = "") -> GVK | None:
        """The kind a request for this resource/subresource carries (``KindFor``)."""
        info = self.info(gvr, subresource)
        return info.kind if info else None

    def resource_for_kind(self, gvk: GVK) -> ResourceInfo | None:
        """The main resource serving a kind (``RESTMapping``); None when unknown."""
        return self._by_kind.get(gvk)

    def resource_for(self, api_version: str, kind: str) -> ResourceInfo | None:
        parsed = parse_api_version(api_version)
        if parsed is None:
            return None
        return self.resource_for_kind(GVK(parsed[0], parsed[1], kind))

    def versions_of_kind(self, group: str, kind: str) -> list[str]:
        """Versions a kind is known in (for "did you mean" hints)."""
        return [gvk.version for gvk in self._by_kind if gvk.group == group and gvk.kind == kind]

    def subresources(self, gvr: GVR) -> list[str]:
        return [i.subresource for i in self.entries if i.gvr == gvr and i.subresource]

    def equivalent_resources_for(self, gvr: GVR, subresource: str = "") -> list[GVR]:
        """``EquivalentResourcesFor``: resources sharing storage with ``gvr`` that serve ``subresource``."""
        if self.info(gvr) is None and self.info(gvr, subresource) is None:
            return []
        candidates = self._by_identity.get(self.identity(gvr), [])
        return [c for c in candidates if self.info(c, subresource) is not None]

    # --- extension -----------------------------------------------------------------------------
    def with_entries(self, extra: Iterable[ResourceInfo]) -> "RESTMapper":
        return RESTMapper(list(extra) + self.entries, self.identity)

    def with_crds(self, crds: Iterable[Mapping]) -> tuple["RESTMapper", list[str]]:
        """A mapper that also knows the given CustomResourceDefinition objects; problems as text."""
        extra: list[ResourceInfo] = []
        problems: list[str] = []
        for crd in crds:
            infos, problem = crd_resources(crd)
            extra.extend(infos)
            if problem:
                problems.append(problem)
        if not extra:
            return self, problems
        return self.with_entries(extra), problems

    @classmethod
    def from_registry(
        cls, registry: Iterable[Mapping], identity: Callable[[GVR], Any] | None = None, namespaced: bool = True
    ) -> "RESTMapper":
        """Build from ``[{"kind": {...}, "resource": {...}, "subresource": ""}]`` (a test's resource registry)."""
        entries = [
            ResourceInfo(
                GVR.from_dict(row.get("resource")),
                str(row.get("subresource") or ""),
                GVK.from_dict(row.get("kind")),
                namespaced,
                True,
                "custom",
            )
            for row in registry
        ]
        return cls(entries, identity or _default_identity)


def crd_resources(crd: Mapping) -> tuple[list[ResourceInfo], str | None]:
    """The endpoints a CustomResourceDefinition serves (resource, ``status`` and ``scale``)."""
    name = ((crd.get("metadata") or {}) if isinstance(crd, Mapping) else {}).get("name", "")
    spec = crd.get("spec") if isinstance(crd, Mapping) else None
    if not isinstance(spec, Mapping):
        return [], f'CustomResourceDefinition "{name}": spec is required'
    names = spec.get("names") if isinstance(spec.get("names"), Mapping) else {}
    group, kind, plural = spec.get("group"), names.get("kind"), names.get("plural")
    if not (isinstance(group, str) and isinstance(kind, str) and isinstance(plural, str) and group and kind and plural):
        return [], f'CustomResourceDefinition "{name}": spec.group, spec.names.kind and spec.names.plural are required'
    namespaced = spec.get("scope", "Namespaced") != "Cluster"
    infos = [
        info
        for version in _crd_versions(spec)
        if isinstance(version, Mapping) and isinstance(version.get("name"), str)
        for info in _version_endpoints(spec, version, GVK(group, version["name"], kind), plural, namespaced)
    ]
    if not infos:
        return [], f'CustomResourceDefinition "{name}": no versions'
    return infos, None


def _crd_versions(spec: Mapping) -> list:
    """`spec.versions`, or the one version of the older `spec.version`."""
    versions = spec.get("versions")
    if isinstance(versions, list) and versions:
        return versions
    legacy = spec.get("version")
    return [{"name": legacy, "served": True}] if isinstance(legacy, str) else []


def _version_endpoints(spec: Mapping, version: Mapping, kind: GVK, plural: str, namespaced: bool) -> list[ResourceInfo]:
    """A version's resource and its subresources (the version's own, else the CRD's)."""
    gvr = GVR(kind.group, kind.version, plural)
    served = version.get("served", True) is not False
    infos = [ResourceInfo(gvr, "", kind, namespaced, served, "crd")]
    subresources = version.get("subresources") or spec.get("subresources") or {}
    if isinstance(subresources, Mapping):
        for subresource, sub_kind in (("status", kind), ("scale", _SCALE)):
            if subresource in subresources:
                infos.append(ResourceInfo(gvr, subresource, sub_kind, namespaced, served, "crd"))
    return infos


_SCALE = GVK("autoscaling", "v1", "Scale")


def _parse_table(text: str) -> list[ResourceInfo]:
    entries: list[ResourceInfo] = []
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        group, versions, resource, kind, scope, subresources = (c.strip() for c in line.split("|"))
        group = "" if group == "core" else group
        for version in versions.split():
            served = not version.startswith("~")
            version = version.lstrip("~")
            gvr = GVR(group, version, resource)
            namespaced = scope == "N"
            entries.append(ResourceInfo(gvr, "", GVK(group, version, kind), namespaced, served))
            for sub in subresources.split():
                sub_name, _, sub_kind = sub.partition("=")
                entries.append(
                    ResourceInfo(gvr, sub_name, _sub_kind(sub_kind, group, version, kind), namespaced, served)
                )
    return entries


def _sub_kind(spec: str, group: str, version: str, kind: str) -> GVK:
    if not spec:
        return GVK(group, version, kind)
    parts = spec.split("/")
    if len(parts) == 3:
        sub_group = "" if parts[0] == "core" else parts[0]
        return GVK(sub_group, parts[1], parts[2])
    return GVK(group, version, spec)


@lru_cache(maxsize=1)
def builtin_mapper() -> RESTMapper:
    """Every built-in type of a recent release (served and removed-but-known versions)."""
    return RESTMapper(_parse_table(builtin_resources.TABLE))
