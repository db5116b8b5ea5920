"""An RBAC authorizer over Role/ClusterRole/RoleBinding/ClusterRoleBinding documents.

It answers the `check` callable of `evaluator.cel.library.authz.Authorizer` with the rule semantics of
kube-apiserver's RBAC authorizer (plugin/pkg/auth/authorizer/rbac): cluster role bindings are visited
first, then the role bindings of the request namespace; the first rule that allows wins and names its
source in the reason; unresolvable role references only show up in the reason of a refusal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from evaluator.authz.decision import Decision, make_decision

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
PRIVILEGED_GROUP = "system:masters"


@dataclass(frozen=True)
class Attributes:
    """What is being authorised: the fields RBAC looks at (a view of AuthzRequest)."""

    user: str
    groups: tuple[str, ...]
    verb: str
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @property
    def is_resource_request(self) -> bool:
        return not self.path

    @classmethod
    def from_request(cls, request: Any) -> "Attributes":
        user = _attr(request, "user") or ""
        groups = tuple(effective_groups(user, _attr(request, "groups") or ()))
        return cls(user, groups, **{name: _attr(request, name) or "" for name in _TEXT_ATTRIBUTES})


# Every attribute after the user and the groups is text, read from the request (AuthzRequest or a dict) by name.
_TEXT_ATTRIBUTES = tuple(f.name for f in fields(Attributes))[2:]


def _attr(request: Any, name: str) -> Any:
    if isinstance(request, Mapping):
        return request.get(name)
    return getattr(request, name, None)


def effective_groups(user: str, groups: Iterable[str]) -> list[str]:
    """The groups the authenticator gives a user: service accounts always carry their SA groups."""
    result = list(groups)
    if user.startswith(SERVICE_ACCOUNT_PREFIX):
        parts = user[len(SERVICE_ACCOUNT_PREFIX) :].split(":")
        if len(parts) == 2:
            implied = ["system:serviceaccounts", f"system:serviceaccounts:{parts[0]}"]
            result += [g for g in implied if g not in result]
    if (
        user
        and user != "system:anonymous"
        and "system:authenticated" not in result
        and "system:unauthenticated" not in result
    ):
        result.append("system:authenticated")
    return result


def _bootstrap() -> list[dict]:
    """The bootstrap policy every cluster has that the default request user relies on: cluster-admin,
    bound to system:masters and (kubeadm) to kubeadm:cluster-admins."""
    rbac = "rbac.authorization.k8s.io/v1"
    admin = {
        "apiVersion": rbac,
        "kind": "ClusterRole",
        "metadata": {"name": "cluster-admin"},
        "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}, {"nonResourceURLs": ["*"], "verbs": ["*"]}],
    }

    def bind(name: str, group: str) -> dict:
        return {
            "apiVersion": rbac,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": group}],
        }

    return [admin, bind("cluster-admin", "system:masters"), bind("kubeadm:cluster-admins", "kubeadm:cluster-admins")]


class RBACAuthorizer:
    """Authorises requests against the RBAC documents of a simulation (other documents are ignored).

    With `bootstrap=True` the cluster-admin role and its two default bindings exist unless the documents
    redefine them (same name)."""

    def __init__(
        self,
        documents: Iterable[Mapping[str, Any]] = (),
        *,
        privileged_groups: Iterable[str] = (PRIVILEGED_GROUP,),
        bootstrap: bool = True,
    ):
        self.roles: dict[tuple[str, str], Mapping] = {}
        self.cluster_roles: dict[str, Mapping] = {}
        self.role_bindings: list[Mapping] = []
        self.cluster_role_bindings: list[Mapping] = []
        self.privileged_groups = frozenset(privileged_groups)
        for doc in [*(_bootstrap() if bootstrap else []), *documents]:
            self._add(doc)

    def _add(self, doc: Any) -> None:
        if not isinstance(doc, Mapping) or not str(doc.get("apiVersion", "")).startswith("rbac.authorization.k8s.io/"):
            return
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
        name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
        kind = doc.get("kind")
        if kind == "Role":
            self.roles[(namespace, name)] = doc
        elif kind == "ClusterRole":
            self.cluster_roles[name] = doc
        elif kind == "RoleBinding":
            self.role_bindings = [b for b in self.role_bindings if (_name(b), _namespace(b)) != (name, namespace)] + [
                doc
            ]
        elif kind == "ClusterRoleBinding":
            self.cluster_role_bindings = [b for b in self.cluster_role_bindings if _name(b) != name] + [doc]

    # -- the `check` callable ------------------------------------------------------------------
    def __call__(self, request: Any) -> Any:
        return self.check(request)

    def check(self, request: Any) -> Any:
        decision, reason = self.authorize(Attributes.from_request(request))
        return make_decision(decision, reason)

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        """(decision, reason) with decision "allow" or "no-opinion", as RBACAuthorizer.Authorize."""
        if self.privileged_groups.intersection(attrs.groups):
            return Decision.ALLOW, ""
        errors: list[str] = []
        for source, rule in self._visit_rules(attrs, errors):
            if rule_allows(attrs, rule):
                return Decision.ALLOW, f"RBAC: allowed by {source}"
        reason = ""
        if errors:
            reason = "RBAC: " + aggregate(errors)
        return Decision.NO_OPINION, reason

    def _visit_rules(self, attrs: Attributes, errors: list[str]):
        for binding in self.cluster_role_bindings:
            subject = applies_to(attrs, binding.get("subjects") or [], "")
            if subject is None:
                continue
            rules = self._role_rules(binding.get("roleRef") or {}, "", errors)
            if rules is None:
                continue
            source = describe_cluster_binding(binding, subject)
            for rule in rules:
                yield source, rule
        if attrs.namespace:
            for binding in self.role_bindings:
                if _namespace(binding) != attrs.namespace:
                    continue
                subject = applies_to(attrs, binding.get("subjects") or [], attrs.namespace)
                if subject is None:
                    continue
                rules = self._role_rules(binding.get("roleRef") or {}, attrs.namespace, errors)
                if rules is None:
                    continue
                source = describe_binding(binding, subject)
                for rule in rules:
                    yield source, rule

    def _role_rules(self, role_ref: Mapping, namespace: str, errors: list[str]) -> list[Mapping] | None:
        kind, name = role_ref.get("kind"), str(role_ref.get("name") or "")
        if kind == "Role":
            role = self.roles.get((namespace, name))
            if role is None:
                errors.append(f'role.rbac.authorization.k8s.io "{name}" not found')
                return None
        elif kind == "ClusterRole":
            role = self.cluster_roles.get(name)
            if role is None:
                errors.append(f'clusterrole.rbac.authorization.k8s.io "{name}" not found')
                return None
        else:
            errors.append(f'unsupported role reference kind: "{kind}"')
            return None
        return [r for r in (role.get("rules") or []) if isinstance(r, Mapping)]


def _namespace(doc: Mapping) -> str:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    return str(meta.get("namespace") or "")


def _name(doc: Mapping) -> str:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    return str(meta.get("name") or "")


def applies_to(attrs: Attributes, subjects: list, namespace: str) -> Mapping | None:
    """The first subject of a binding that names the user, or None."""
    for subject in subjects:
        if isinstance(subject, Mapping) and subject_matches(attrs, subject, namespace):
            return subject
    return None


def subject_matches(attrs: Attributes, subject: Mapping, namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return attrs.user == name
    if kind == "Group":
        return name in attrs.groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        if not sa_namespace:
            return False
        return attrs.user == f"{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{name}"
    return False


def _go_quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def describe_subject(subject: Mapping, binding_namespace: str) -> str:
    kind, name = subject.get("kind"), str(subject.get("name") or "")
    if kind == "ServiceAccount":
        return f"{kind} {_go_quote(name + '/' + (subject.get('namespace') or binding_namespace))}"
    return f"{kind} {_go_quote(name)}"


def describe_cluster_binding(binding: Mapping, subject: Mapping) -> str:
    ref = binding.get("roleRef") or {}
    return (
        f"ClusterRoleBinding {_go_quote(_name(binding))} of {ref.get('kind')} {_go_quote(ref.get('name') or '')} "
        f"to {describe_subject(subject, '')}"
    )


def describe_binding(binding: Mapping, subject: Mapping) -> str:
    ref = binding.get("roleRef") or {}
    ns = _namespace(binding)
    return (
        f"RoleBinding {_go_quote(_name(binding) + '/' + ns)} of {ref.get('kind')} {_go_quote(ref.get('name') or '')} "
        f"to {describe_subject(subject, ns)}"
    )


def rule_allows(attrs: Attributes, rule: Mapping) -> bool:
    verbs = rule.get("verbs") or []
    if not ("*" in verbs or attrs.verb in verbs):
        return False
    if attrs.is_resource_request:
        combined = attrs.resource + ("/" + attrs.subresource if attrs.subresource else "")
        return (
            api_group_matches(rule, attrs.group)
            and resource_matches(rule, combined, attrs.subresource)
            and resource_name_matches(rule, attrs.name)
        )
    return non_resource_url_matches(rule, attrs.path)


def api_group_matches(rule: Mapping, group: str) -> bool:
    groups = rule.get("apiGroups") or []
    return "*" in groups or group in groups


def resource_matches(rule: Mapping, combined: str, subresource: str) -> bool:
    for resource in rule.get("resources") or []:
        if resource == "*" or resource == combined:
            return True
        if (
            subresource
            and len(resource) == len(subresource) + 2
            and resource.startswith("*/")
            and resource.endswith(subresource)
        ):
            return True
    return False


def resource_name_matches(rule: Mapping, name: str) -> bool:
    names = rule.get("resourceNames") or []
    return not names or name in names


def non_resource_url_matches(rule: Mapping, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or []:
        if url == "*" or url == path:
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def aggregate(messages: list[str]) -> str:
    """apimachinery's utilerrors.Aggregate text: one message alone, several as `[a, b]` (duplicates dropped)."""
    seen: list[str] = []
    for message in messages:
        if message not in seen:
            seen.append(message)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"
