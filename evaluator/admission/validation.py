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
from evaluator.admission.policy_kind import create_rules
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.kinds import ADMISSION_POLICY_KINDS
from evaluator.k8s.names import is_dns1123_subdomain, is_valid_label_value

# (expression, context, has_params, variables before it as ((name, expression), ...)) -> error detail or None
CompileCheck = Callable[[str, str, bool, tuple], "str | None"]

_text = vr.text
_as_list = vr.as_list


@dataclass
class PreparedObject:
    """A defaulted admission object and its validation errors (empty when the API would accept it).

    ``warnings`` are deviations we tolerate so that documents written for the Go unit tests still work (a
    kind declares them: ``CreateRules.tolerate``, or ``SpecCheck.warnings`` while it validates); each is
    worded as the error the API server would return.
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
    rules = create_rules(obj.get("kind")) if is_admission_object(obj) else None
    if rules is not None and isinstance(obj.get("spec"), Mapping):
        warnings += rules.tolerate(obj)
    errors = validate_admission_object(defaulted, compile_check, warnings)
    return PreparedObject(defaulted, errors, warnings)


def validate_admission_object(
    obj: Mapping, compile_check: CompileCheck | None = None, warnings: list[fe.FieldError] | None = None
) -> list[fe.FieldError]:
    """Errors for a (defaulted) admissionregistration policy or binding; [] for objects of other kinds.

    The parts every policy or every binding shares are checked here, then the kind's own
    (`policy_kind.CreateRules.validate`). Tolerated deviations go to ``warnings`` when a list is given (else
    they are dropped)."""
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
    checker = Expressions(compile_check)
    kind = obj["kind"]
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    if kind in ADMISSION_POLICY_KINDS:
        shared, has_params = validate_common_policy_parts(spec, checker)
    else:
        shared, has_params = validate_binding_spec(spec), False
    errors += shared
    rules = create_rules(kind)
    if rules is not None:
        errors += rules.validate(spec, SpecCheck(_text(meta.get("name")), checker, has_params, warnings))
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


class Expressions:
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


@dataclass
class SpecCheck:
    """What a kind's own spec validation (`CreateRules.validate`) reads besides the spec."""

    name: str  # metadata.name ("" when unset)
    expressions: Expressions  # `.check(expression, path, context, has_params)`: the compile hook's errors
    has_params: bool  # the policy names a paramKind (False for bindings)
    warnings: list[fe.FieldError]  # where tolerated deviations go


# --------------------------------------------------------------------------- policies
def validate_common_policy_parts(spec: Mapping, checker: Expressions) -> tuple[list[fe.FieldError], bool]:
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


# --------------------------------------------------------------------------- bindings
def validate_binding_spec(spec: Mapping) -> list[fe.FieldError]:
    """The fields every binding has; the binding kind's own (`CreateRules.validate`) come after."""
    errors: list[fe.FieldError] = []
    policy_name = _text(spec.get("policyName"))
    if not policy_name:
        errors.append(fe.required("spec.policyName"))
    else:
        errors.extend(fe.invalid("spec.policyName", policy_name, m) for m in is_dns1123_subdomain(policy_name))
    errors.extend(vr.validate_param_ref(spec.get("paramRef"), "spec.paramRef"))
    errors.extend(vr.validate_match_resources(spec.get("matchResources"), "spec.matchResources"))
    return errors


__all__ = [
    "PreparedObject",
    "prepare",
    "validate_admission_object",
    "validate_object_meta",
    "validate_common_policy_parts",
    "validate_binding_spec",
    "Expressions",
    "SpecCheck",
    "CompileCheck",
]
