"""Kubernetes' authorizer library (pkg/cel/library/authz.go, with the AuthzSelectors additions).

`authorizer` is an `Authorizer` built by the admission layer with the request's user and a `check`
callable that answers an `AuthzRequest` with an `AuthzDecision`. The builders are immutable values, as in
Go: each method returns a new check. `authorizer.requestResource` is a separate CEL variable (its name has
a dot); `request_resource(authorizer, request)` builds its value from an AdmissionRequest dict.
A `check()` costs 350000 (Kubernetes allows two per expression); every other method costs 1, and the
selectors cost their parse (see `_selector_cost`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.authz_selectors import Requirement, parse_field_selector, parse_label_selector
from evaluator.cel.registry import function
from evaluator.k8s.names import is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "AuthzRequest",
    "AuthzDecision",
    "Authorizer",
    "PathCheck",
    "GroupCheck",
    "ResourceCheck",
    "Decision",
    "request_resource",
    "service_account_user",
    "CHECK_COST",
]

CHECK_COST = 350_000
_AUTHORIZER = "kubernetes.authorization.Authorizer"
_PATH_CHECK = "kubernetes.authorization.PathCheck"
_GROUP_CHECK = "kubernetes.authorization.GroupCheck"
_RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck"
_DECISION = "kubernetes.authorization.Decision"


@dataclass(frozen=True)
class AuthzRequest:
    """What a `check()` asks (authorizer.AttributesRecord). A non-empty `path` means a non-resource request."""

    user: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    uid: str = ""
    verb: str = ""
    group: str = ""
    version: str = "*"
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    resource_request: bool = True
    field_selector: str = ""
    label_selector: str = ""
    field_selector_requirements: tuple[Requirement, ...] | None = None
    field_selector_error: str | None = None
    label_selector_requirements: tuple[Requirement, ...] | None = None
    label_selector_error: str | None = None

    def get(self, name: str, default: Any = None) -> Any:
        """Mapping-style access, so authorizers may treat a request as a dict."""
        return getattr(self, name, default)


@dataclass(frozen=True)
class AuthzDecision:
    """An authorizer's answer: decision is "allow", "deny" or "no-opinion"; error set when it failed."""

    decision: str = "no-opinion"
    reason: str = ""
    error: str | None = None


Check = Callable[[AuthzRequest], AuthzDecision]


def _no_opinion(_: AuthzRequest) -> AuthzDecision:
    return AuthzDecision("no-opinion", "", None)


@dataclass(frozen=True, eq=False)
class Authorizer:
    """The `authorizer` variable: who asks (the request's user) and how to ask."""

    cel_type_name = _AUTHORIZER
    check: Check = _no_opinion
    user: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    uid: str = ""

    def request(self, **attrs: Any) -> AuthzRequest:
        return AuthzRequest(user=self.user, groups=tuple(self.groups), extra=dict(self.extra), uid=self.uid, **attrs)

    def ask(self, request: AuthzRequest) -> "Decision":
        try:
            answer = self.check(request)
        except Exception as e:  # an authorizer failure is a decision with an error, never a crash
            return Decision(AuthzDecision("no-opinion", "", str(e) or type(e).__name__))
        if not isinstance(answer, AuthzDecision) or answer.error == "":
            answer = AuthzDecision(
                getattr(answer, "decision", "no-opinion"),
                getattr(answer, "reason", "") or "",
                getattr(answer, "error", None) or None,
            )
        return Decision(answer)


@dataclass(frozen=True, eq=False)
class PathCheck:
    cel_type_name = _PATH_CHECK
    authorizer: Authorizer
    path: str


@dataclass(frozen=True, eq=False)
class GroupCheck:
    cel_type_name = _GROUP_CHECK
    authorizer: Authorizer
    group: str


@dataclass(frozen=True, eq=False)
class ResourceCheck:
    cel_type_name = _RESOURCE_CHECK
    authorizer: Authorizer
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""


@dataclass(frozen=True, eq=False)
class Decision:
    cel_type_name = _DECISION
    answer: AuthzDecision

    def cel_json(self) -> dict:
        return {"decision": self.answer.decision, "reason": self.answer.reason, "error": self.answer.error}


def service_account_user(namespace: str, name: str) -> tuple[str, tuple[str, ...]]:
    """serviceaccount.ServiceAccountInfo.UserInfo(): the user name and groups of a service account."""
    return (
        f"system:serviceaccount:{namespace}:{name}",
        ("system:serviceaccounts", f"system:serviceaccounts:{namespace}"),
    )


def request_resource(authorizer: Authorizer, request: Mapping[str, Any]) -> ResourceCheck:
    """The value of `authorizer.requestResource`: a ResourceCheck for the admission request's own resource."""
    resource = request.get("resource") or {}
    return ResourceCheck(
        authorizer,
        str(resource.get("group") or ""),
        str(resource.get("resource") or ""),
        subresource=str(request.get("subResource") or ""),
        namespace=str(request.get("namespace") or ""),
        name=str(request.get("name") or ""),
    )


# --- builders ---
@function(f"{_AUTHORIZER}.path(string) -> {_PATH_CHECK}", cost=1)
def authorizer_path(authz: Authorizer, path: str) -> PathCheck:
    if not path.strip():
        raise CELEvalError("path must not be empty")
    return PathCheck(authz, path)


@function(f"{_AUTHORIZER}.group(string) -> {_GROUP_CHECK}", cost=1)
def authorizer_group(authz: Authorizer, group: str) -> GroupCheck:
    return GroupCheck(authz, group)


@function(f"{_AUTHORIZER}.serviceAccount(string, string) -> {_AUTHORIZER}", cost=1)
def authorizer_service_account(authz: Authorizer, namespace: str, name: str) -> Authorizer:
    """Ask as a service account instead (ValidateServiceAccountName, ValidateNamespaceName, prefix=false)."""
    if is_dns1123_subdomain(name):
        raise CELEvalError("Invalid service account name")
    if is_dns1123_label(namespace):
        raise CELEvalError("Invalid service account namespace")
    user, groups = service_account_user(namespace, name)
    return Authorizer(check=authz.check, user=user, groups=groups, extra={}, uid="")


@function(f"{_GROUP_CHECK}.resource(string) -> {_RESOURCE_CHECK}", cost=1)
def group_resource(check: GroupCheck, resource: str) -> ResourceCheck:
    if not resource.strip():
        raise CELEvalError("resource must not be empty")
    return ResourceCheck(check.authorizer, check.group, resource)


@function(f"{_RESOURCE_CHECK}.subresource(string) -> {_RESOURCE_CHECK}", cost=1)
def resource_subresource(check: ResourceCheck, subresource: str) -> ResourceCheck:
    return replace(check, subresource=subresource)


@function(f"{_RESOURCE_CHECK}.namespace(string) -> {_RESOURCE_CHECK}", cost=1)
def resource_namespace(check: ResourceCheck, namespace: str) -> ResourceCheck:
    return replace(check, namespace=namespace)


@function(f"{_RESOURCE_CHECK}.name(string) -> {_RESOURCE_CHECK}", cost=1)
def resource_name(check: ResourceCheck, name: str) -> ResourceCheck:
    return replace(check, name=name)


def _selector_cost(args: tuple, result: Any) -> int:
    """Kubernetes' selectorCostEstimate at the actual length: list base + parse + requirements."""
    length = len(args[1])
    parse = math.ceil(length * 0.1)
    requirements = math.ceil(math.ceil(length * 0.5) * 50.0)  # ListCreateBaseCost + StructCreateBaseCost
    return 10 + parse + requirements


@function(f"{_RESOURCE_CHECK}.fieldSelector(string) -> {_RESOURCE_CHECK}", cost=_selector_cost)
def resource_field_selector(check: ResourceCheck, selector: str) -> ResourceCheck:
    return replace(check, field_selector=selector)


@function(f"{_RESOURCE_CHECK}.labelSelector(string) -> {_RESOURCE_CHECK}", cost=_selector_cost)
def resource_label_selector(check: ResourceCheck, selector: str) -> ResourceCheck:
    return replace(check, label_selector=selector)


# --- checks ---
# A selector set on the check reaches the authorizer parsed (its requirements, or its error) next to its text.
_SELECTORS = (("field_selector", parse_field_selector), ("label_selector", parse_label_selector))


@function(f"{_PATH_CHECK}.check(string) -> {_DECISION}", cost=CHECK_COST)
def path_check(check: PathCheck, verb: str) -> Decision:
    authz = check.authorizer
    return authz.ask(authz.request(path=check.path, verb=verb, version="", resource_request=False))


@function(f"{_RESOURCE_CHECK}.check(string) -> {_DECISION}", cost=CHECK_COST)
def resource_check(check: ResourceCheck, verb: str) -> Decision:
    attrs: dict[str, Any] = {}
    for name, parse in _SELECTORS:
        selector = getattr(check, name)
        if selector:
            reqs, error = parse(selector)
            attrs[name] = selector
            attrs[f"{name}_error"] = error
            attrs[f"{name}_requirements"] = tuple(reqs) if reqs is not None else None
    authz = check.authorizer
    return authz.ask(
        authz.request(
            verb=verb,
            group=check.group,
            version="*",
            resource=check.resource,
            subresource=check.subresource,
            namespace=check.namespace,
            name=check.name,
            **attrs,
        )
    )


# --- decision accessors ---
@function(f"{_DECISION}.allowed() -> bool", cost=1)
def decision_allowed(d: Decision) -> bool:
    return d.answer.decision == "allow"


@function(f"{_DECISION}.reason() -> string", cost=1)
def decision_reason(d: Decision) -> str:
    return d.answer.reason or ""


@function(f"{_DECISION}.errored() -> bool", cost=1)
def decision_errored(d: Decision) -> bool:
    return d.answer.error is not None


@function(f"{_DECISION}.error() -> string", cost=1)
def decision_error(d: Decision) -> str:
    return d.answer.error or ""
