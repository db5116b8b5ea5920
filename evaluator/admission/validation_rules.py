"""API validation of the pieces policies and bindings share: match resources and rules, paramKind,
paramRef, match conditions and variables. Wording follows
``pkg/apis/admissionregistration/validation/validation.go`` (kubernetes/kubernetes)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from evaluator.cel.escaping import RESERVED
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.labels import validate_label_selector
from evaluator.k8s.names import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_path_segment_name,
)
from evaluator.k8s.restmapping import parse_group_version

SUPPORTED_FAILURE_POLICIES = ["Fail", "Ignore"]
SUPPORTED_MATCH_POLICIES = ["Equivalent", "Exact"]
SUPPORTED_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
VALID_SCOPES = ["*", "Cluster", "Namespaced"]
PARAMETER_NOT_FOUND_ACTIONS = ["Deny", "Allow"]
MAX_MATCH_CONDITIONS = 64

_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = RESERVED  # the CEL reserved words, as apiserver's cel/escaping.go lists them


def not_an_object(value: Any, path: str, optional: bool = True) -> list[fe.FieldError]:
    """The error for a field that must be an object and is not (none when it is optional and absent)."""
    return [] if optional and value is None else [fe.invalid(path, str(value), "must be an object")]


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def is_cel_identifier(name: str) -> bool:
    return bool(_CEL_IDENT.fullmatch(name)) and name not in _CEL_RESERVED


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def validate_qualified_name(value: str, path: str) -> list[fe.FieldError]:
    return [fe.invalid(path, value, msg) for msg in is_qualified_name(value)]


# --------------------------------------------------------------------------- rules
def _has_wildcard(items: list) -> bool:
    return "*" in items


def validate_resources(resources: list, path: str) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    if not resources:
        errors.append(fe.required(path))
    wildcard_sub_of: set[str] = set()  # x/*
    wildcard_res_for: set[str] = set()  # */x
    double = single = plain = False
    for i, res_sub in enumerate(resources):
        res_sub = text(res_sub)
        if res_sub == "":
            errors.append(fe.required(f"{path}[{i}]"))
            continue
        double = double or res_sub == "*/*"
        single = single or res_sub == "*"
        res, sep, sub = res_sub.partition("/")
        if not sep:
            plain = res_sub != "*"  # Go overwrites the flag on every plain entry
            continue
        if res in wildcard_sub_of:
            errors.append(fe.invalid(f"{path}[{i}]", res_sub, f"if '{res}/*' is present, must not specify {res_sub}"))
        if sub in wildcard_res_for:
            errors.append(fe.invalid(f"{path}[{i}]", res_sub, f"if '*/{sub}' is present, must not specify {res_sub}"))
        if sub == "*":
            wildcard_sub_of.add(res)
        if res == "*":
            wildcard_res_for.add(sub)
    go_value = fe.GoValue(resources)
    if len(resources) > 1 and double:
        errors.append(fe.invalid(path, go_value, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        errors.append(
            fe.invalid(path, go_value, "if '*' is present, must not specify other resources without subresources")
        )
    return errors


def _wildcard_list(
    rule: Mapping, field: str, path: str, what: str, go_type: str = "[]string"
) -> tuple[list, list[fe.FieldError]]:
    """A rule's list `field`: required, and `*` only alone."""
    items = as_list(rule.get(field))
    errors: list[fe.FieldError] = []
    if not items:
        errors.append(fe.required(f"{path}.{field}"))
    if len(items) > 1 and _has_wildcard(items):
        message = f"if '*' is present, must not specify other {what}"
        errors.append(fe.invalid(f"{path}.{field}", fe.GoValue(items, go_type), message))
    return items, errors


def validate_rule_with_operations(rule: Mapping, path: str) -> list[fe.FieldError]:
    operations, errors = _wildcard_list(rule, "operations", path, "operations", "[]admissionregistration.OperationType")
    for i, operation in enumerate(operations):
        if operation not in SUPPORTED_OPERATIONS:
            errors.append(fe.not_supported(f"{path}.operations[{i}]", text(operation), SUPPORTED_OPERATIONS))
    errors += _wildcard_list(rule, "apiGroups", path, "API groups")[1]
    versions, version_errors = _wildcard_list(rule, "apiVersions", path, "API versions")
    errors += version_errors
    for i, version in enumerate(versions):
        if text(version) == "":
            errors.append(fe.required(f"{path}.apiVersions[{i}]"))
    errors.extend(validate_resources(as_list(rule.get("resources")), f"{path}.resources"))
    scope = rule.get("scope")
    if scope is not None and scope not in VALID_SCOPES:
        errors.append(fe.not_supported(f"{path}.scope", text(scope), VALID_SCOPES))
    return errors


def validate_named_rule(rule: Any, path: str) -> list[fe.FieldError]:
    if not isinstance(rule, Mapping):
        return not_an_object(rule, path, optional=False)
    errors: list[fe.FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(as_list(rule.get("resourceNames"))):
        name = text(name)
        errors.extend(fe.invalid(f"{path}.resourceNames[{i}]", name, m) for m in validate_path_segment_name(name))
        if name in seen:
            errors.append(fe.duplicate(f"{path}.resourceNames[{i}]", name))
        seen.add(name)
    return errors + validate_rule_with_operations(rule, path)


def validate_match_resources(match: Any, path: str) -> list[fe.FieldError]:
    if not isinstance(match, Mapping):
        return not_an_object(match, path)
    errors: list[fe.FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errors.append(fe.required(f"{path}.matchPolicy"))
    elif policy not in SUPPORTED_MATCH_POLICIES:
        errors.append(fe.not_supported(f"{path}.matchPolicy", text(policy), SUPPORTED_MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errors.append(fe.required(f"{path}.{key}"))
        else:
            errors.extend(validate_label_selector(match.get(key), f"{path}.{key}"))
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(as_list(match.get(key))):
            errors.extend(validate_named_rule(rule, f"{path}.{key}[{i}]"))
    return errors


# --------------------------------------------------------------------------- params
def validate_param_kind(param_kind: Any, path: str) -> list[fe.FieldError]:
    if not isinstance(param_kind, Mapping):
        return not_an_object(param_kind, path, optional=False)
    errors: list[fe.FieldError] = []
    api_version = text(param_kind.get("apiVersion"))
    if not api_version:
        errors.append(fe.required(f"{path}.apiVersion"))
    else:
        parsed = parse_group_version(api_version)
        if parsed is None:
            errors.append(
                fe.invalid(f"{path}.apiVersion", api_version, f"unexpected GroupVersion string: {api_version}")
            )
        else:
            group, version = parsed
            if group and is_dns1123_subdomain(group):
                errors.append(fe.invalid(f"{path}.apiVersion", group, ",".join(is_dns1123_subdomain(group))))
            if not version:
                errors.append(fe.invalid(f"{path}.apiVersion", api_version, "version must be specified"))
            elif is_dns1035_label(version):
                errors.append(fe.invalid(f"{path}.apiVersion", version, ",".join(is_dns1035_label(version))))
    kind = text(param_kind.get("kind"))
    if not kind:
        errors.append(fe.required(f"{path}.kind"))
    elif is_dns1035_label(kind.lower()):
        errors.append(
            fe.invalid(
                f"{path}.kind",
                kind,
                "may have mixed case, but should otherwise match: " + ",".join(is_dns1035_label(kind.lower())),
            )
        )
    return errors


def validate_param_ref(param_ref: Any, path: str) -> list[fe.FieldError]:
    if not isinstance(param_ref, Mapping):
        return not_an_object(param_ref, path)
    errors: list[fe.FieldError] = []
    name, selector = text(param_ref.get("name")), param_ref.get("selector")
    if name:
        errors.extend(fe.invalid(f"{path}.name", name, m) for m in validate_path_segment_name(name))
        if selector is not None:
            errors.append(fe.forbidden(f"{path}.name", "name and selector are mutually exclusive"))
    if selector is not None:
        errors.extend(validate_label_selector(selector, f"{path}.selector"))
        if name:
            errors.append(fe.forbidden(f"{path}.selector", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errors.append(fe.required(path, "one of name or selector must be specified"))
    namespace = text(param_ref.get("namespace"))
    if namespace:
        errors.extend(fe.invalid(f"{path}.namespace", namespace, m) for m in is_dns1123_label(namespace))
    action = param_ref.get("parameterNotFoundAction")
    if not action:
        errors.append(fe.required(f"{path}.parameterNotFoundAction"))
    elif action not in PARAMETER_NOT_FOUND_ACTIONS:
        errors.append(fe.not_supported(f"{path}.parameterNotFoundAction", text(action), PARAMETER_NOT_FOUND_ACTIONS))
    return errors


# --------------------------------------------------------------------------- expressions
def each_object(items: list, path: str, errors: list[fe.FieldError]) -> Iterator[tuple[str, Mapping]]:
    """(path, item) of every item of a list that is an object; each other item is an error in `errors`."""
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            yield f"{path}[{i}]", item
        else:
            errors += not_an_object(item, f"{path}[{i}]", optional=False)


def validate_match_conditions(conditions: Any, path: str) -> list[fe.FieldError]:
    conditions = as_list(conditions)
    errors: list[fe.FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(fe.too_many(path, len(conditions), MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for item, condition in each_object(conditions, path, errors):
        if not text(condition.get("expression")).strip():
            errors.append(fe.required(f"{item}.expression"))
        name = text(condition.get("name"))
        if not name:
            errors.append(fe.required(f"{item}.name"))
        else:
            errors.extend(validate_qualified_name(name, f"{item}.name"))
            if name in names:
                errors.append(fe.duplicate(f"{item}.name", name))
            names.add(name)
    return errors


def validate_variables(variables: Any, path: str) -> list[fe.FieldError]:
    """Names must be CEL identifiers. The server does not reject repeated names (the later one wins)."""
    errors: list[fe.FieldError] = []
    for item, variable in each_object(as_list(variables), path, errors):
        name = text(variable.get("name"))
        if not name.strip():
            errors.append(fe.required(f"{item}.name", "name is not specified"))
        elif not is_cel_identifier(name):
            errors.append(fe.invalid(f"{item}.name", name, "name is not a valid CEL identifier"))
        if not text(variable.get("expression")).strip():
            errors.append(fe.required(f"{item}.expression", "expression is not specified"))
    return errors
