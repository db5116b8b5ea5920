"""Defaulting of built-in objects, as the API server applies it when it decodes a request.

Before any admission plugin sees an object, the API server runs the defaulting functions of the object's API
group (`pkg/apis/<group>/<version>/defaults.go` and the generated defaulters), and it runs them again on the
result of every mutating admission policy's patch. Policies therefore see `spec.replicas: 1` on a Deployment
that did not set it. One small module per API group; this file is the registry and the entry points.

policy/v1 (PodDisruptionBudget) has no defaulting function, so it has no module. Not to be confused with
`evaluator.admission.defaults`, the API defaulting of the admission *policy* objects themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator import shortcuts
from evaluator.k8s.defaulting import apps, autoscaling, batch, core, networking, rbac
from evaluator.k8s.defaulting.fields import Defaulter, Recorder, clone_dict

__all__ = [
    "Defaulted",
    "default_object",
    "defaulted_copy",
    "default_in_place",
    "defaults_known_for",
    "redefault",
    "registered_kinds",
]

_REGISTRY: dict[tuple[str, str], dict[str, Defaulter]] = {
    ("", "v1"): core.DEFAULTERS,
    ("apps", "v1"): apps.DEFAULTERS,
    ("batch", "v1"): batch.DEFAULTERS,
    ("networking.k8s.io", "v1"): networking.DEFAULTERS,
    ("rbac.authorization.k8s.io", "v1"): rbac.DEFAULTERS,
    ("autoscaling", "v2"): autoscaling.DEFAULTERS,
}


# The registry by the exact (apiVersion, kind) texts: the shortcut of every request's lookup (the usual case in
# one step), derived from _REGISTRY.
_BY_API_VERSION: dict[tuple[str, str], Defaulter] = {
    ((f"{group}/{version}" if group else version), kind): defaulter
    for (group, version), defaulters in _REGISTRY.items()
    for kind, defaulter in defaulters.items()
}


@dataclass(frozen=True)
class Defaulted:
    """The object as the API server stores it, and the paths of the fields defaulting set (in order)."""

    object: Any
    paths: tuple[str, ...] = ()


def registered_kinds() -> list[tuple[str, str]]:
    """(apiVersion, kind) of every built-in kind with defaulting functions."""
    return list(_BY_API_VERSION)


def _defaulter(obj: Any) -> Defaulter | None:
    if type(obj) is not dict:
        return None
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if shortcuts.ON and type(api_version) is str and type(kind) is str:
        found = _BY_API_VERSION.get((api_version, kind))
        if found is not None:
            return found
    return _defaulter_by_group(api_version, kind)


def _defaulter_by_group(api_version: Any, kind: Any) -> Defaulter | None:
    """The registry lookup for what is not spelled as registered ("/v1", text subclasses) or not registered."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group, _, version = api_version.rpartition("/")
    return _REGISTRY.get((group, version), {}).get(kind)


def defaults_known_for(obj: Any) -> bool:
    """Whether `obj` (by apiVersion and kind) is a built-in kind with defaulting functions."""
    return _defaulter(obj) is not None


def default_in_place(obj: Any) -> list[str]:
    """Apply the defaults to `obj` itself; the paths set. Objects of other kinds are left as they are."""
    defaulter = _defaulter(obj)
    if defaulter is None:
        return []
    rec = Recorder()
    defaulter(obj, rec)
    return rec.paths


def default_object(obj: Any) -> Defaulted:
    """A defaulted copy of `obj` (the input is never changed); `obj` itself when nothing applies."""
    defaulted, paths = defaulted_copy(obj)
    return Defaulted(defaulted, tuple(paths))


def defaulted_copy(obj: Any) -> tuple[Any, list[str]]:
    """`default_object` as a pair (object, paths): without the Defaulted wrapper, for once per request."""
    defaulter = _defaulter(obj)
    if defaulter is None:
        return obj, []
    copied = clone_dict(obj)  # _defaulter took only a dict
    rec = Recorder()
    defaulter(copied, rec)
    return (copied if rec.paths else obj), rec.paths


def redefault(obj: Mapping[str, Any]) -> Any:
    """The MutatingAdmissionPolicy dispatcher's defaulter: applied to each patched object (a fresh copy)."""
    default_in_place(obj)
    return obj
