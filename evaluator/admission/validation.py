"""API validation of admission policies and bindings, as the API server applies it on create.

``validate_admission_object(obj)`` expects a *defaulted* object (``defaults.apply_defaults``) and returns
``FieldError``s worded like ``kubectl apply`` shows them; an object with errors takes no part in
admission. ``prepare(obj)`` does both steps. CEL compilation is optional: pass ``compile_check``
(``(expression, context, has_params) -> detail text or None``, detail as the server words it, e.g.
``compilation failed: ERROR: <input>:1:5: ...``) to reject expressions that do not compile, as the API
server does; without it only the structure is checked (Go unit tests that skip API validation expect
compile errors to surface at evaluation time instead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import validation_rules as vr
from evaluator.admission.defaults import SERVED_VERSIONS, apply_defaults, is_admission_object
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.names import is_dns1123_subdomain, is_valid_label_value

# (expression, context, has_params, variables before it as ((name, expression), ...)) -> error detail or None
CompileCheck = Callable[[str, str, bool, tuple], "str | None"]

SUPPORTED_VALIDATION_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]
# Accepted with a warning: the API server's validation rejects it, but the admission plugin maps it to 401
# and tests that bypass API validation (the k8s-vap conformance set) rely on it.
TOLERATED_VALIDATION_REASONS = ["Unauthorized"]
VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]
MUTATING_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"]  # a MutatingAdmissionPolicy cannot match DELETE
REINVOCATION_POLICIES = ["IfNeeded", "Never"]
MAX_AUDIT_ANNOTATIONS = 20
MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024

_text = vr.text
_as_list = vr.as_list


@dataclass
class PreparedObject:
    """A defaulted admission object and its validation errors (empty when the API would accept it).

    ``warnings`` are deviations we tolerate so that documents written for the Go unit tests still work
    (a missing MAP ``reinvocationPolicy`` defaulted to Never, ``reason: Unauthorized``); each is worded as
    the error the API server would return.
    """

    object: dict
    errors: list[fe.FieldError] = field(default_factory=list)
    warnings: list[fe.FieldError] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def message(self) -> str | None:
        """The error text kubectl would print, or None when valid."""
        if not self.errors:
            return None
        meta = self.object.get("metadata") if isinstance(self.object.get("metadata"), Mapping) else {}
        return fe.kubectl_invalid_message(_text(self.object.get("kind")), _text(meta.get("name")), self.errors)


def prepare(obj: Mapping, compile_check: CompileCheck | None = None) -> PreparedObject:
    """Default then validate, like a create through the API server."""
    defaulted = apply_defaults(obj)
    warnings: list[fe.FieldError] = []
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    if (
        is_admission_object(obj)
        and obj.get("kind") == "MutatingAdmissionPolicy"
        and isinstance(spec, Mapping)
        and spec.get("reinvocationPolicy") is None
    ):
        warnings.append(fe.required("spec.reinvocationPolicy", "the API server requires it; Never is assumed here"))
    errors = validate_admission_object(defaulted, compile_check, warnings)
    return PreparedObject(defaulted, errors, warnings)


def validate_admission_object(
    obj: Mapping, compile_check: CompileCheck | None = None, warnings: list[fe.FieldError] | None = None
) -> list[fe.FieldError]:
    """Errors for a (defaulted) VAP/MAP policy or binding; [] for objects of other kinds.

    Tolerated deviations go to ``warnings`` when a list is given (else they are dropped)."""
    warnings = warnings if warnings is not None else []
    if not is_admission_object(obj):
        return []
    version = _text(obj.get("apiVersion")).rpartition("/")[2]
    if version not in SERVED_VERSIONS:
        return [
            fe.invalid(
                "apiVersion",
                obj.get("apiVersion"),
                f'no matches for kind "{obj.get("kind")}" in version "{obj.get("apiVersion")}"',
            )
        ]
    errors = validate_object_meta(obj.get("metadata"))
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return errors + [fe.required("spec")]
    checker = _Expressions(compile_check)
    kind = obj["kind"]
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    if kind == "ValidatingAdmissionPolicy":
        errors += validate_validating_policy_spec(spec, _text(meta.get("name")), checker, warnings)
    elif kind == "MutatingAdmissionPolicy":
        errors += validate_mutating_policy_spec(spec, checker)
    elif kind == "ValidatingAdmissionPolicyBinding":
        errors += validate_binding_spec(spec, validating=True)
    else:
        errors += validate_binding_spec(spec, validating=False)
    return errors


def validate_object_meta(metadata: Any) -> list[fe.FieldError]:
    """``ValidateObjectMeta`` with ``NameIsDNSSubdomain`` (cluster-scoped: a namespace is simply dropped)."""
    if not isinstance(metadata, Mapping):
        return [fe.required("metadata.name", "name or generateName is required")]
    errors: list[fe.FieldError] = []
    name = _text(metadata.get("name"))
    if not name:
        if not _text(metadata.get("generateName")):
            errors.append(fe.required("metadata.name", "name or generateName is required"))
    else:
        errors.extend(fe.invalid("metadata.name", name, m) for m in is_dns1123_subdomain(name))
    labels = metadata.get("labels")
    if isinstance(labels, Mapping):
        for key, value in labels.items():
            errors.extend(vr.validate_qualified_name(str(key), "metadata.labels"))
            errors.extend(fe.invalid("metadata.labels", _text(value), m) for m in is_valid_label_value(_text(value)))
    return errors


class _Expressions:
    """Runs the optional compile hook and words its failure as ``convertCELErrorToValidationError``."""

    def __init__(self, compile_check: CompileCheck | None):
        self.compile_check = compile_check
        self.variables: tuple = ()  # ((name, expression), ...) of the policy, compiled before the others

    def check(self, expression: str, path: str, context: str, has_params: bool) -> list[fe.FieldError]:
        if self.compile_check is None:
            return []
        try:
            detail = self.compile_check(expression, context, has_params, self.variables)
        except Exception as exc:  # a broken hook must not break loading
            return [fe.FieldError(path, fe.INTERNAL, f"unsupported error type: {exc}")]
        return [fe.invalid(path, expression, detail)] if detail else []


# --------------------------------------------------------------------------- policies
def _validate_common_policy_parts(spec: Mapping, checker: _Expressions) -> tuple[list[fe.FieldError], bool]:
    errors: list[fe.FieldError] = []
    policy = spec.get("failurePolicy")
    if policy is None:
        errors.append(fe.required("spec.failurePolicy"))
    elif policy not in vr.SUPPORTED_FAILURE_POLICIES:
        errors.append(fe.not_supported("spec.failurePolicy", _text(policy), vr.SUPPORTED_FAILURE_POLICIES))
    has_params = spec.get("paramKind") is not None
    if has_params:
        errors.extend(vr.validate_param_kind(spec.get("paramKind"), "spec.paramKind"))
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errors.append(fe.required("spec.matchConstraints"))
    else:
        errors.extend(vr.validate_match_resources(constraints, "spec.matchConstraints"))
        if isinstance(constraints, Mapping) and not _as_list(constraints.get("resourceRules")):
            errors.append(fe.required("spec.matchConstraints.resourceRules"))
    variables = [
        (_text(v.get("name")), _text(v.get("expression"))) if isinstance(v, Mapping) else ("", "")
        for v in _as_list(spec.get("variables"))
    ]
    checker.variables = tuple(variables)  # matchConditions see every variable (CompileAndStoreVariables first)
    errors.extend(vr.validate_match_conditions(spec.get("matchConditions"), "spec.matchConditions"))
    for i, condition in enumerate(_as_list(spec.get("matchConditions"))):
        expression = _text(condition.get("expression")).strip() if isinstance(condition, Mapping) else ""
        if expression:
            errors.extend(
                checker.check(expression, f"spec.matchConditions[{i}].expression", "matchCondition", has_params)
            )
    errors.extend(vr.validate_variables(spec.get("variables"), "spec.variables"))
    for i, variable in enumerate(_as_list(spec.get("variables"))):
        expression = _text(variable.get("expression")) if isinstance(variable, Mapping) else ""
        if expression.strip():
            checker.variables = tuple(variables[:i])  # a variable sees only the ones before it
            errors.extend(checker.check(expression, f"spec.variables[{i}].expression", "variable", has_params))
    checker.variables = tuple(variables)  # every other expression sees them all (CompileAndStoreVariables)
    return errors, has_params


def validate_validating_policy_spec(
    spec: Mapping, policy_name: str, checker: _Expressions | None = None, warnings: list[fe.FieldError] | None = None
) -> list[fe.FieldError]:
    checker = checker or _Expressions(None)
    warnings = warnings if warnings is not None else []
    errors, has_params = _validate_common_policy_parts(spec, checker)
    validations = _as_list(spec.get("validations"))
    annotations = _as_list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        message = "validations or auditAnnotations must contain at least one item"
        return errors + [fe.required("spec.validations", message), fe.required("spec.auditAnnotations", message)]
    for i, validation in enumerate(validations):
        errors.extend(_validate_validation(validation, f"spec.validations[{i}]", has_params, checker, warnings))
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        errors.append(
            fe.invalid(
                "spec.auditAnnotations",
                f"{len(annotations)} items",
                f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
            )
        )
    keys: set[str] = set()
    for i, annotation in enumerate(annotations):
        path = f"spec.auditAnnotations[{i}]"
        if not isinstance(annotation, Mapping):
            errors.append(fe.invalid(path, str(annotation), "must be an object"))
            continue
        errors.extend(_validate_audit_annotation(annotation, policy_name, path, has_params, checker))
        key = _text(annotation.get("key"))
        if key in keys:
            errors.append(fe.duplicate(f"{path}.key", key))
        keys.add(key)
    return errors


def _validate_validation(
    validation: Any, path: str, has_params: bool, checker: _Expressions, warnings: list[fe.FieldError]
) -> list[fe.FieldError]:
    if not isinstance(validation, Mapping):
        return [fe.invalid(path, str(validation), "must be an object")]
    errors: list[fe.FieldError] = []
    expression = _text(validation.get("expression"))
    if not expression.strip():
        errors.append(fe.required(f"{path}.expression", "expression is not specified"))
    else:
        errors.extend(checker.check(expression, f"{path}.expression", "validation", has_params))
    message_expression = _text(validation.get("messageExpression"))
    if message_expression and not message_expression.strip():
        errors.append(fe.invalid(f"{path}.messageExpression", message_expression, "must be non-empty if specified"))
    elif message_expression.strip():
        errors.extend(checker.check(message_expression, f"{path}.messageExpression", "messageExpression", has_params))
    message = _text(validation.get("message"))
    if message and not message.strip():
        errors.append(fe.invalid(f"{path}.message", message, "message must be non-empty if specified"))
    elif "\n" in message.strip() or "\r" in message.strip():
        errors.append(fe.invalid(f"{path}.message", message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in SUPPORTED_VALIDATION_REASONS:
        unsupported = fe.not_supported(f"{path}.reason", _text(reason), SUPPORTED_VALIDATION_REASONS)
        (warnings if reason in TOLERATED_VALIDATION_REASONS else errors).append(unsupported)
    return errors


def _validate_audit_annotation(
    annotation: Mapping, policy_name: str, path: str, has_params: bool, checker: _Expressions
) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    key = _text(annotation.get("key"))
    if policy_name:
        errors.extend(vr.validate_qualified_name(f"{policy_name}/{key}", f"{path}.key"))
    else:
        errors.append(fe.invalid(f"{path}.key", key, "requires metadata.name be non-empty"))
    value_expression = _text(annotation.get("valueExpression"))
    trimmed = value_expression.strip()
    if not trimmed:
        errors.append(fe.required(f"{path}.valueExpression", "valueExpression is not specified"))
    elif len(trimmed.encode()) > MAX_AUDIT_VALUE_EXPRESSION_LENGTH:
        errors.append(
            fe.required(
                f"{path}.valueExpression", f"must not exceed {MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length"
            )
        )
    else:
        errors.extend(checker.check(trimmed, f"{path}.valueExpression", "auditAnnotation", has_params))
    return errors


def validate_mutating_policy_spec(spec: Mapping, checker: _Expressions | None = None) -> list[fe.FieldError]:
    checker = checker or _Expressions(None)
    errors, has_params = _validate_common_policy_parts(spec, checker)
    constraints = spec.get("matchConstraints")
    if isinstance(constraints, Mapping):
        errors.extend(_validate_mutating_operations(constraints, "spec.matchConstraints"))
    mutations = _as_list(spec.get("mutations"))
    if not mutations:
        errors.append(fe.required("spec.mutations", "mutations must contain at least one item"))
    for i, mutation in enumerate(mutations):
        errors.extend(_validate_mutation(mutation, f"spec.mutations[{i}]", has_params, checker))
    policy = spec.get("reinvocationPolicy")
    if policy == "":
        errors.append(fe.required("spec.reinvocationPolicy"))
    elif policy is not None and policy not in REINVOCATION_POLICIES:
        errors.append(fe.not_supported("spec.reinvocationPolicy", _text(policy), REINVOCATION_POLICIES))
    return errors


def _validate_mutation(mutation: Any, path: str, has_params: bool, checker: _Expressions) -> list[fe.FieldError]:
    if not isinstance(mutation, Mapping):
        return [fe.invalid(path, str(mutation), "must be an object")]
    errors: list[fe.FieldError] = []
    patch_type = mutation.get("patchType")
    fields = {"JSONPatch": "jsonPatch", "ApplyConfiguration": "applyConfiguration"}
    if not patch_type:
        return [fe.required(f"{path}.patchType")]
    if patch_type not in fields:
        return [fe.not_supported(f"{path}.patchType", _text(patch_type), PATCH_TYPES)]
    wanted = fields[patch_type]
    other = "applyConfiguration" if wanted == "jsonPatch" else "jsonPatch"
    body = mutation.get(wanted)
    if body is None:
        errors.append(fe.required(f"{path}.{wanted}", f"must be specified when patchType is {patch_type}"))
    elif not isinstance(body, Mapping) or not _text(body.get("expression")).strip():
        errors.append(fe.required(f"{path}.{wanted}.expression"))
    else:
        errors.extend(checker.check(body["expression"], f"{path}.{wanted}.expression", wanted, has_params))
    if mutation.get(other) is not None:
        errors.append(
            fe.invalid(f"{path}.{other}", "{" + other + "}", f"must not be specified when patchType is {patch_type}")
        )
    return errors


def _validate_mutating_operations(match: Mapping, path: str) -> list[fe.FieldError]:
    """MAP rules may not name DELETE; the server reports it without a rule index."""
    errors: list[fe.FieldError] = []
    for rule in _as_list(match.get("resourceRules")):
        for operation in _as_list(rule.get("operations")) if isinstance(rule, Mapping) else []:
            if operation not in MUTATING_OPERATIONS:
                errors.append(
                    fe.not_supported(f"{path}.resourceRules.operations", _text(operation), MUTATING_OPERATIONS)
                )
    return errors


# --------------------------------------------------------------------------- bindings
def validate_binding_spec(spec: Mapping, validating: bool) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    policy_name = _text(spec.get("policyName"))
    if not policy_name:
        errors.append(fe.required("spec.policyName"))
    else:
        errors.extend(fe.invalid("spec.policyName", policy_name, m) for m in is_dns1123_subdomain(policy_name))
    errors.extend(vr.validate_param_ref(spec.get("paramRef"), "spec.paramRef"))
    match = spec.get("matchResources")
    errors.extend(vr.validate_match_resources(match, "spec.matchResources"))
    if validating:
        errors.extend(validate_validation_actions(spec.get("validationActions"), "spec.validationActions"))
    elif isinstance(match, Mapping):
        errors.extend(_validate_mutating_operations(match, "spec.matchResources"))
    return errors


def validate_validation_actions(actions: Any, path: str) -> list[fe.FieldError]:
    actions = _as_list(actions)
    errors: list[fe.FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in VALIDATION_ACTIONS:
            errors.append(fe.not_supported(f"{path}[{i}]", _text(action), VALIDATION_ACTIONS))
            continue  # only supported (string) values can repeat; a list or map here must not crash
        if action in seen:
            errors.append(fe.duplicate(f"{path}[{i}]", _text(action)))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errors.append(
            fe.invalid(
                path,
                fe.GoValue(actions, "[]admissionregistration.ValidationAction"),
                "must not contain both Deny and Warn (repeating the same validation failure "
                "information in the API response and headers serves no purpose)",
            )
        )
    if not seen:
        errors.append(fe.required(path, "at least one validation action is required"))
    return errors


__all__ = [
    "PreparedObject",
    "prepare",
    "validate_admission_object",
    "validate_object_meta",
    "validate_validating_policy_spec",
    "validate_mutating_policy_spec",
    "validate_binding_spec",
    "validate_validation_actions",
    "CompileCheck",
]
