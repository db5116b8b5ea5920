"""`ClusterReader`: discovery, counts, lists and single gets of allow-listed kinds, through a ReadOnlyClient.

Kinds are named as a user would (`Deployment`, `apps/v1/Deployment`, `deployments.apps`) and resolved against
the cluster's discovery, one version per resource (the first its group serves it at, which is the preferred
one when that serves it). Lists page with `limit`/`continue` and stop at a cap: a kind with more objects is a
`too_large` error, never a silent cut."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from evaluator.cluster.client import ReadOnlyClient
from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import NEVER
from evaluator.cluster.selector import name_problem, namespace_problem, selector_problem

__all__ = ["Resource", "ClusterReader", "PAGE_SIZE", "Progress"]

PAGE_SIZE = 500
# After each page of a list: (the kind as `resource.group`, objects read so far, how many the list holds when
# the API server says so (`remainingItemCount`), else None).
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ("get", "list")

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def label(self) -> str:
        """`resource.group`, as RBAC rules and the allow-list name it."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The URL path; a namespace or name that is not one URL segment is refused (a ClusterError), so no
        `../` can leave this resource's path (and its allow-list check)."""
        for field, wrong in (
            ("namespace", namespace and namespace_problem(namespace)),
            ("name", name is not None and name_problem(name)),
        ):
            if wrong:
                raise ClusterError(self.label(), "invalid", f"{field}: {wrong}")
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace and self.namespaced:
            base += f"/namespaces/{namespace}"
        return f"{base}/{self.resource}" + (f"/{name}" if name else "")


class ClusterReader:
    """Reads what the allow-list names; everything else is a `not_allowed` error before any call is made.
    `allowed=None` (the CLI, reading with its user's own credentials) allows every kind but Secrets."""

    def __init__(self, client: ReadOnlyClient, allowed: frozenset[str] | None):
        self.client = client
        self.allowed = None if allowed is None else allowed - NEVER
        self._resources: list[Resource] | None = None
        self.discovery_errors: dict[str, ClusterError] = {}  # group -> why its discovery failed

    def resources(self) -> list[Resource]:
        """Every listable top-level resource, one version each (discovery, read once)."""
        if self._resources is None:
            chosen: dict[tuple[str, str], Resource] = {}
            versions = [("", v) for v in self.client.get("/api", what="discovery").get("versions") or ()]
            for group in self.client.get("/apis", what="discovery").get("groups") or ():
                name = group.get("name") or ""
                served = [v.get("version") for v in group.get("versions") or () if v.get("version")]
                preferred = (group.get("preferredVersion") or {}).get("version")
                versions += [(name, v) for v in sorted(served, key=lambda v: v != preferred)]
            for group, version in versions:
                try:
                    served_here = list(self._served(group, version))
                except ClusterError as exc:
                    # one broken group (an aggregated API whose server is down answers 503) costs only its
                    # kinds, which then say why; out of time or credentials, the whole read stops
                    if exc.reason == "unauthorized" or self.client.remaining() <= 0 or not group:
                        raise
                    self.discovery_errors.setdefault(group, exc)
                    continue
                for resource in served_here:
                    chosen.setdefault((resource.group, resource.resource), resource)
            self._resources = list(chosen.values())
        return self._resources

    def _served(self, group: str, version: str) -> Iterator[Resource]:
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        for item in self.client.get(path, what="discovery").get("resources") or ():
            verbs = tuple(item.get("verbs") or ())
            if "/" not in item.get("name", "/") and "list" in verbs:
                yield Resource(
                    group, version, item["name"], item.get("kind") or "", bool(item.get("namespaced")), verbs
                )

    def find(self, label: str) -> Resource | None:
        """The served resource of a `resource.group` name, or None when the cluster does not serve it (a
        ClusterError when its group's discovery failed: whether it is served is not known)."""
        found = next((r for r in self.resources() if r.label() == label), None)
        group = label.partition(".")[2]
        if found is None and group in self.discovery_errors:
            raise self._undiscovered(label, group)
        return found

    def _undiscovered(self, what: str, group: str) -> ClusterError:
        cause = self.discovery_errors[group]
        return ClusterError(what, cause.reason, f"the discovery of API group {group} failed: {cause.detail}")

    def resolve(self, name: str) -> Resource:
        """The resource a user's kind name means; `not_found` or `not_allowed` otherwise."""
        wanted = name.strip()
        group = version = None
        kind = wanted
        if "/" in wanted:  # apps/v1/Deployment or v1/Pod
            parts = wanted.split("/")
            kind = parts[-1]
            group, version = ("", parts[0]) if len(parts) == 2 else (parts[0], parts[1])
        matches = [
            r
            for r in self.resources()
            if (
                r.kind == kind
                or r.kind.lower() == kind.lower()
                or r.label() == kind.lower()
                or r.resource == kind.lower()
            )
            and (group is None or r.group == group)
        ]
        if version is not None:
            matches = [r for r in matches if r.version == version] or [r for r in matches if r.group == group]
        if not matches:
            if group in self.discovery_errors:
                raise self._undiscovered(name, group)
            failed = ", ".join(sorted(self.discovery_errors))
            detail = "the cluster serves no such kind" + (f" (the discovery of {failed} failed)" if failed else "")
            raise ClusterError(name, "not_found", detail)
        matches.sort(key=lambda r: (r.group != "", r.group))  # the core group first (Event, not events.k8s.io)
        resource = matches[0]
        self.check_allowed(resource, name)
        return resource

    def check_allowed(self, resource: Resource, name: str = "") -> None:
        label = resource.label()
        if label in NEVER or (self.allowed is not None and label not in self.allowed):
            raise ClusterError(
                name or label,
                "not_allowed",
                f"{label} is not in this playground's allow-list of cluster kinds"
                + (" (Secrets are never read)" if label in NEVER else ""),
            )

    def count(
        self, resource: Resource, namespace: str | None = None, selector: str | None = None, cap: int = 1000
    ) -> tuple[int, bool]:
        """(how many objects, exact?): counted without loading them (`remainingItemCount`), else by paging
        up to `cap` + 1 (then inexact: "more than cap")."""
        self.check_allowed(resource)
        query = _query(selector, 1, resource.label())
        page = self.client.get(resource.path(namespace), query, what=resource.label())
        meta = page.get("metadata") or {}
        items = len(page.get("items") or ())
        if not meta.get("continue"):
            return items, True
        if isinstance(meta.get("remainingItemCount"), int):
            return items + meta["remainingItemCount"], True
        total = 0
        for _ in self._pages(resource, namespace, selector):
            total += 1
            if total > cap:
                return total, False
        return total, True

    def list(
        self,
        resource: Resource,
        namespace: str | None = None,
        selector: str | None = None,
        cap: int = 1000,
        progress: Progress | None = None,
    ) -> list[dict]:
        """Every object (with apiVersion and kind, without managedFields); `too_large` past `cap`. `progress`
        hears after each page how far the list is."""
        self.check_allowed(resource)
        found: list[dict] = []

        def paged(announced: int) -> None:
            if progress is not None:
                progress(resource.label(), len(found), announced or None)

        for item, announced in self._pages(resource, namespace, selector, paged):
            if len(found) == cap or announced > cap:  # announced: what the first page says the list holds
                where = f" in namespace {namespace}" if namespace else ""
                raise ClusterError(
                    resource.label(),
                    "too_large",
                    f"more than {cap} objects{where} (the cap); narrow it by namespace or label selector",
                    verb="load",
                )
            found.append(as_object(item, resource))
        return found

    def get(self, resource: Resource, namespace: str | None, name: str) -> dict:
        self.check_allowed(resource)
        what = f"{resource.label()} {namespace + '/' if namespace else ''}{name}"
        return as_object(self.client.get(resource.path(namespace, name), what=what), resource)

    def _pages(
        self,
        resource: Resource,
        namespace: str | None,
        selector: str | None,
        paged: Callable[[int], None] | None = None,
    ) -> Iterator[tuple[dict, int]]:
        """(item, how many items the list announced it holds: `remainingItemCount` + the first page, else 0);
        `paged(announced)` once the consumer has taken a page's items."""
        token, announced = None, 0
        while True:
            query = _query(selector, PAGE_SIZE, resource.label()) + ([("continue", token)] if token else [])
            page = self.client.get(resource.path(namespace), query, what=resource.label())
            items = [item for item in page.get("items") or () if isinstance(item, dict)]
            meta = page.get("metadata") or {}
            if token is None and isinstance(meta.get("remainingItemCount"), int):
                announced = len(items) + meta["remainingItemCount"]
            yield from ((item, announced) for item in items)
            if paged is not None:
                paged(announced)
            token = meta.get("continue")
            if not token:
                return


def _query(selector: str | None, limit: int, what: str) -> list[tuple[str, Any]]:
    """A list's query; a label selector the API server would refuse (or a huge one) is never sent."""
    wrong = selector_problem(selector) if selector else None
    if wrong:
        raise ClusterError(what, "invalid", f"labelSelector: {wrong}")
    return [("limit", limit)] + ([("labelSelector", selector)] if selector else [])


def as_object(item: dict, resource: Resource) -> dict:
    """A listed item as a whole object: a list leaves out apiVersion/kind; managedFields is noise here."""
    obj = {"apiVersion": resource.api_version, "kind": resource.kind, **item}
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        obj["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return obj
