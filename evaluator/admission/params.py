"""Which params a binding is evaluated with: the policy source's paramKind lookup and CollectParams.

Error texts are the API server's, letter for letter; the dispatcher prefixes them with
`failed to configure policy: ` or `failed to configure binding: `.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.admission.cluster import ClusterIndex, group_version, name_of, namespace_of
from evaluator.k8s.labels import object_labels, parse_selector

NAMESPACED = "Namespaced"


@dataclass(frozen=True)
class ParamSource:
    """A resolved paramKind: where its objects live and how they are scoped."""

    group: str
    version: str
    kind: str
    scope: str

    @property
    def gvk_text(self) -> str:
        return f"{self.group}/{self.version}, Kind={self.kind}"


class PolicySkipped(Exception):
    """The policy source drops the policy entirely (e.g. an unparsable paramKind apiVersion)."""


def resolve_param_kind(
    param_kind: Mapping[str, Any] | None, cluster: ClusterIndex
) -> tuple[ParamSource | None, str | None]:
    """(source, configuration error) as ensureParamsForPolicyLocked; raises PolicySkipped on a bad apiVersion."""
    if param_kind is None:
        return None, None
    api_version = param_kind.get("apiVersion")
    kind = str(param_kind.get("kind") or "")
    gv = group_version(api_version)
    if gv is None:
        raise PolicySkipped(f"failed to parse paramKind APIVersion: unexpected GroupVersion string: {api_version}")
    group, version = gv
    scope = None
    if cluster.mapper is not None and version:
        info = cluster.mapper.resource_for(f"{group}/{version}" if group else version, kind)
        scope = info.scope if info is not None else None
    scope = scope or cluster.crd_scope(group, version, kind)
    if scope is None:
        return None, f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'"
    return ParamSource(group, version, kind, scope), None


def collect_params(
    param_kind: Mapping[str, Any] | None,
    source: ParamSource | None,
    param_ref: Mapping[str, Any] | None,
    namespace: str,
    cluster: ClusterIndex,
) -> tuple[list[Mapping | None], str | None]:
    """(params, error) as generic.CollectParams: [None] means one evaluation with `params == null`."""
    if param_kind is None or param_ref is None:
        return [None], None
    if source is None:
        return [], f"paramKind kind `{_param_kind_text(param_kind)}` not known"
    candidates, error = _in_scope(source, param_ref, namespace, cluster)
    if error is not None:
        return [], error
    params, error = _referenced(candidates, param_ref)
    if error is not None:
        return [], error
    if not params and param_ref.get("parameterNotFoundAction") == "Deny":
        return [], "no params found for policy binding with `Deny` parameterNotFoundAction"
    return params, None


def _in_scope(
    source: ParamSource, param_ref: Mapping[str, Any], namespace: str, cluster: ClusterIndex
) -> tuple[list[Mapping], str | None]:
    """The objects of the param kind in the namespace the reference looks in (none: cluster-scoped)."""
    ref_namespace = str(param_ref.get("namespace") or "")
    candidates = cluster.objects(source.group, source.kind)
    if source.scope == NAMESPACED:
        params_namespace = ref_namespace or namespace
        if not params_namespace:
            return [], "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        return [c for c in candidates if namespace_of(c) == params_namespace], None
    if ref_namespace:
        return [], "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
    return [c for c in candidates if not namespace_of(c)], None


def _referenced(candidates: list[Mapping], param_ref: Mapping[str, Any]) -> tuple[list[Mapping | None], str | None]:
    """The candidates paramRef names (by name: at most one) or selects."""
    ref_name = str(param_ref.get("name") or "")
    selector_spec = param_ref.get("selector")
    if ref_name:
        if selector_spec is not None:
            return [], "paramRef.name and paramRef.selector are mutually exclusive"
        return [c for c in candidates if name_of(c) == ref_name][:1], None
    if selector_spec is not None:
        selector, error = parse_selector(selector_spec)
        if error is not None:
            return [], error
        return [c for c in candidates if selector.matches(object_labels(c))], None
    return [], "one of name or selector must be provided"


def _param_kind_text(param_kind: Mapping[str, Any]) -> str:
    """v1.ParamKind.String() of the generated protobuf type: `&ParamKind{APIVersion:...,Kind:...,}`."""
    return f"&ParamKind{{APIVersion:{param_kind.get('apiVersion') or ''},Kind:{param_kind.get('kind') or ''},}}"


def param_key(param: Mapping | None) -> str | None:
    """`namespace/name` of a param (cluster-scoped: `/name`), None for the null param."""
    if param is None:
        return None
    return f"{namespace_of(param)}/{name_of(param)}"
