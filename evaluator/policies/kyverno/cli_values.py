"""The Kyverno CLI's `Values` (cli.kyverno.io/v1alpha1) and `UserInfo` documents turned into the `values`
that `evaluate` takes, the way `kyverno test` applies them to one resource."""

from __future__ import annotations

CLI_GROUP = "cli.kyverno.io/"


def is_cli_document(doc: object) -> bool:
    return isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith(CLI_GROUP)


def _add_policy_values(out: dict, policy: dict, resource_name: str) -> None:
    """A policy's values for the resource (variables) and its rules' values and foreach values."""
    name = str(policy.get("name", "")).split("/")[-1]
    for res in policy.get("resources") or []:
        if res.get("name") == resource_name:
            out["variables"].update(res.get("values") or {})
    for rule in policy.get("rules") or []:
        out["ruleValues"].setdefault(name, {})[rule.get("name", "")] = rule.get("values") or {}
        if rule.get("foreachValues"):
            out["foreachValues"].setdefault(name, {})[rule.get("name", "")] = rule["foreachValues"]


def _namespace_labels(spec: dict, resource_namespace: str) -> dict | None:
    """The labels of the resource's namespace: a `namespaces` object wins over a namespaceSelector entry."""
    labels = None
    for sel in spec.get("namespaceSelector") or []:
        if sel.get("name") == resource_namespace:
            labels = dict(sel.get("labels") or {})
    for ns in spec.get("namespaces") or []:
        meta = ns.get("metadata") or {}
        if meta.get("name") == resource_namespace:
            labels = dict(meta.get("labels") or {})
    return labels


def values_from_spec(spec: dict, resource_name: str, resource_namespace: str) -> dict:
    """globalValues, then per-policy resource values (later wins); rule and foreach values per policy/rule;
    namespace labels from namespaceSelector / namespaces."""
    out: dict = {"variables": dict(spec.get("globalValues") or {}), "ruleValues": {}, "foreachValues": {}}
    for policy in spec.get("policies") or []:
        _add_policy_values(out, policy, resource_name)
    labels = _namespace_labels(spec, resource_namespace)
    if labels is not None:
        out["namespaceLabels"] = labels
    return out


def values_from_documents(documents: list, request: dict) -> tuple[dict, dict]:
    """(values, userInfo request fields) found among CLI documents; empty when there are none."""
    obj = request.get("object") or request.get("oldObject") or {}
    meta = obj.get("metadata") or {}
    values: dict = {}
    user: dict = {}
    for doc in documents:
        if not is_cli_document(doc):
            continue
        if doc.get("kind") in ("Values", "Value"):
            spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else doc
            values = values_from_spec(spec, meta.get("name", ""), meta.get("namespace") or request.get("namespace", ""))
        elif doc.get("kind") == "UserInfo":
            user = {"userInfo": doc.get("userInfo") or {}}
            values_roles = {"roles": doc.get("roles") or [], "clusterRoles": doc.get("clusterRoles") or []}
            user["_roles"] = values_roles
    return values, user


def merge_values(from_documents: dict, explicit: dict | None) -> dict:
    """Explicit `values` win over those read from CLI documents (variables merge key by key)."""
    merged = dict(from_documents)
    for key, value in (explicit or {}).items():
        if key == "variables" and isinstance(merged.get("variables"), dict):
            merged["variables"] = {**merged["variables"], **value}
        else:
            merged[key] = value
    return merged
