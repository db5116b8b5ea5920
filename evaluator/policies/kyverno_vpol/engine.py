"""Evaluate one compiled ValidatingPolicy (or autogen variant) on one input, as Kyverno's vpol engine does
(pkg/cel/policies/vpol/engine/engine.go handlePolicy + compiler/policy.go evaluateWithData).

Order: matchConstraints (Kubernetes mode only; no constraints -> no match), then CEL PolicyExceptions
(all their matchConditions true -> exempt), then matchConditions (false -> skip; an error -> error, or
no match with failurePolicy Ignore), then validations in order: the first false gives `fail`, an error
`error`, all true `pass`. Variables are lazy and memoised. The rule response carries Kyverno's texts:
"success", "skip", "error: <cel error>", "failed to load context: <error>", the validation's message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from evaluator import cel as _cel
from evaluator.admission.matching import match_resources
from evaluator.cel.errors import CELEvalError

from .compiler import CompiledPolicy
from .context import OfflineContext
from .libs import bindings

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"


@dataclass
class Inputs:
    """One thing to validate: an admission request (Kubernetes mode) or a JSON payload."""

    object: Any
    old_object: Any = None
    request: Mapping[str, Any] | None = None  # the CEL `request` (AdmissionRequest as JSON)
    match_request: Mapping[str, Any] | None = None  # kind/resource/namespace/operation/... for matching
    namespace_object: Any = None
    namespace_lookup: Callable[[str], Any] | None = None
    context: OfflineContext = field(default_factory=OfflineContext)
    payload: bool = False  # a JSON payload (not a Kubernetes resource)


@dataclass
class RuleResponse:
    rule: str
    status: str
    message: str
    properties: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)


class EvalFailure(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class LazyVariables(Mapping):
    """`variables`: each evaluated on first use in the shared activation, memoised with its error."""

    def __init__(self, compiled: tuple[tuple[str, Any], ...], activation: dict[str, Any]):
        self._programs = dict(compiled)
        self._activation = activation
        self._memo: dict[str, tuple[Any, str | None]] = {}
        self.trace: list[dict[str, Any]] = []

    def __getitem__(self, name: str) -> Any:
        if name not in self._programs:
            raise KeyError(name)
        if name not in self._memo:
            program = self._programs[name]
            cost = 0
            try:
                evaluation = program.evaluate(self._activation)
                value, error, cost = evaluation.value, None, evaluation.cost
            except _cel.EvaluationError as err:
                value, error, cost = None, err.message, getattr(err, "cost", 0) or 0
            self._memo[name] = (value, error)
            self.trace.append(_row({"name": name}, program, value, error, cost))
        value, error = self._memo[name]
        if error is not None:
            raise _cel.EvaluationError(error)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._programs

    def __iter__(self) -> Iterator[str]:
        return iter(self._programs)

    def __len__(self) -> int:
        return len(self._programs)


def _plain(value: Any) -> Any:
    try:
        return _cel.to_json(value)
    except Exception:
        return str(value)


def _row(label: dict[str, Any], program: Any, value: Any, error: str | None, cost: int) -> dict[str, Any]:
    """One trace row as the VAP trace has it: expression, value, CEL type, cost, error."""
    from evaluator.admission.expressions import type_name

    return {
        **label,
        "expression": getattr(program, "expression", ""),
        "value": _plain(value) if error is None else None,
        "type": type_name(value) if error is None else None,
        "cost": cost,
        "error": error,
    }


def run_program(program: Any, activation: Mapping[str, Any], rows: list | None = None, **label: Any) -> Any:
    """The program's value; with `rows`, one trace row (labelled `label`) is appended."""
    try:
        evaluation = program.evaluate(activation)
    except _cel.EvaluationError as err:
        if rows is not None:
            rows.append(_row(label, program, None, err.message, getattr(err, "cost", 0) or 0))
        raise EvalFailure(err.message) from None
    except Exception as err:  # a defect below must become this expression's error
        message = f"internal error: {type(err).__name__}: {err}"
        if rows is not None:
            rows.append(_row(label, program, None, message, 0))
        raise EvalFailure(message) from None
    if rows is not None:
        rows.append(_row(label, program, evaluation.value, None, evaluation.cost))
    return evaluation.value


def conversion_error(value: Any, want: str) -> str:
    from evaluator.admission.expressions import type_name

    return f"type conversion error from '{type_name(value)}' to '{want}'"


def matches(
    policy: CompiledPolicy,
    programs: tuple[Any, ...],
    activation: Mapping[str, Any],
    rows: list | None = None,
    names: tuple[str, ...] = (),
) -> bool:
    """compiler.Policy.match: any false -> False; errors collected; Ignore turns them into no match."""
    return all_true(programs, activation, ignore=policy.failure_policy == "Ignore", rows=rows, names=names)


def all_true(
    programs: Any,
    activation: Mapping[str, Any],
    *,
    ignore: bool = False,
    rows: list | None = None,
    names: tuple[str, ...] = (),
) -> bool:
    """Kyverno's condition lists (matchConditions, a DeletingPolicy's conditions): any false -> False; errors
    joined with "; " into one EvalFailure unless `ignore` (then no match). With `rows`, one trace row per
    condition evaluated (named from `names`)."""
    errors = []
    for i, program in enumerate(programs):
        try:
            value = run_program(program, activation, rows, name=names[i] if i < len(names) else str(i))
        except EvalFailure as err:
            errors.append(err.message)
            continue
        if not isinstance(value, bool):
            errors.append(conversion_error(value, "bool"))
            continue
        if not value:
            return False
    if not errors:
        return True
    if ignore:
        return False
    raise EvalFailure("; ".join(errors))


def exception_key(exc: Mapping[str, Any]) -> str:
    meta = exc.get("metadata") if isinstance(exc.get("metadata"), Mapping) else {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    return f"{namespace}/{name}" if namespace else name


def exception_response(matched: list[Mapping[str, Any]]) -> RuleResponse:
    keys = [exception_key(e) for e in matched]
    best, best_priority = 0, 0
    for i, exc in enumerate(matched):
        labels = (exc.get("metadata") or {}).get("labels") or {}
        try:
            priority = int(labels.get("kyverno.io/exception-priority", ""))
        except ValueError:
            continue
        if priority > best_priority:
            best, best_priority = i, priority
    report = (matched[best].get("spec") or {}).get("reportResult")
    verb = "passed" if report == PASS else "skipped"
    return RuleResponse(
        "exception",
        PASS if report == PASS else SKIP,
        f"rule is {verb} due to policy exception: " + ", ".join(keys),
        exceptions=keys,
    )


def match_constraints(policy: CompiledPolicy, inputs: Inputs) -> tuple[bool, str | None]:
    """(matched, error) for the Kubernetes path; policies without constraints match nothing."""
    if policy.match_constraints is None or inputs.match_request is None:
        return False, None
    result = match_resources(policy.match_constraints, inputs.match_request, inputs.namespace_lookup)
    if result.error:
        return False, result.error
    return result.matched, None


def evaluate(
    policy: CompiledPolicy, inputs: Inputs, *, check_match: bool = True, trace: dict[str, list] | None = None
) -> list[RuleResponse] | None:
    """The rule responses of one policy evaluation; None when matchConstraints do not select the input.
    With `trace`, its "matchConditions", "variables", "validations", "messageExpressions" and
    "auditAnnotations" lists get a row per expression evaluated (as the VAP trace)."""
    if trace is not None:
        for key in ("matchConditions", "variables", "validations", "messageExpressions", "auditAnnotations"):
            trace.setdefault(key, [])
    if policy.error is not None:
        return [RuleResponse("", ERROR, policy.error)]
    if check_match:
        matched, error = match_constraints(policy, inputs)
        if error is not None:
            return [RuleResponse("match", ERROR, f"failed to execute matching: {error}")]
        if not matched:
            return None
    activation: dict[str, Any] = {
        "object": inputs.object,
        "oldObject": inputs.old_object,
        "request": inputs.request,
        "namespaceObject": inputs.namespace_object,
    }
    activation.update(bindings(inputs.context, _policy_namespace(policy)))
    activation["variables"] = {}
    try:
        matched_exceptions = []
        full = False
        allowed_images: list[str] = []
        allowed_values: list[str] = []
        for exc in policy.exceptions:
            try:
                hit = matches(policy, exc.conditions, activation)
            except EvalFailure:
                if full:
                    continue
                raise
            if hit:
                matched_exceptions.append(exc.document)
                exc_spec = exc.document.get("spec") or {}
                if not exc_spec.get("images") and not exc_spec.get("allowedValues"):
                    full = True
                elif not full:
                    allowed_images += list(exc_spec.get("images") or [])
                    allowed_values += list(exc_spec.get("allowedValues") or [])
        if full:
            return [exception_response(matched_exceptions)]
        activation["exceptions"] = {"allowedImages": allowed_images, "allowedValues": allowed_values}
        conditions = tuple(p for _, p in policy.match_conditions)
        names = tuple(n for n, _ in policy.match_conditions)
        rows = trace["matchConditions"] if trace is not None else None
        if not matches(policy, conditions, activation, rows, names):
            return [RuleResponse("", SKIP, "skip")]
    except EvalFailure as err:
        return [RuleResponse("evaluation", ERROR, f"failed to load context: {err.message}")]
    variables = LazyVariables(policy.variables, activation)
    activation["variables"] = variables
    if trace is not None:
        variables.trace = trace["variables"]
    return [_validate(policy, activation, trace)]


def _policy_namespace(policy: CompiledPolicy) -> str:
    from .spec import namespace_of

    return namespace_of(policy.document)


def _validate(policy: CompiledPolicy, activation: dict[str, Any], trace: dict[str, list] | None = None) -> RuleResponse:
    rows = trace["validations"] if trace is not None else None
    messages = trace["messageExpressions"] if trace is not None else None
    annotation_rows = trace["auditAnnotations"] if trace is not None else None
    for validation in policy.validations:
        try:
            value = run_program(validation.program, activation, rows, index=validation.index)
        except EvalFailure as err:
            return RuleResponse("", ERROR, f"error: {err.message}", {"cel.validationIndex": str(validation.index)})
        if not isinstance(value, bool):
            return RuleResponse(
                "", ERROR, f"error: {conversion_error(value, 'bool')}", {"cel.validationIndex": str(validation.index)}
            )
        if value:
            continue
        message = validation.message
        if validation.message_expression is not None:
            try:
                out = run_program(validation.message_expression, activation, messages, index=validation.index)
                message = (
                    out
                    if isinstance(out, str)
                    else f"failed to convert message expression to string: {conversion_error(out, 'string')}"
                )
            except EvalFailure as err:
                message = f"failed to evaluate message expression: {err.message}"
        if not message:
            message = f"CEL expression validation failed at index {validation.index}"
        try:
            annotations = audit_annotations(policy, activation, annotation_rows)
        except EvalFailure as err:
            return RuleResponse("", ERROR, f"error: {err.message}", {"cel.validationIndex": str(validation.index)})
        properties = {**annotations, "cel.validationIndex": str(validation.index)}
        if validation.reason:
            properties.setdefault("reason", validation.reason)
        return RuleResponse("", FAIL, message, properties)
    try:
        annotations = audit_annotations(policy, activation, annotation_rows)
    except EvalFailure as err:
        return RuleResponse("evaluation", ERROR, f"failed to load context: {err.message}")
    return RuleResponse("", PASS, "success", annotations)


def audit_annotations(
    policy: CompiledPolicy, activation: Mapping[str, Any], rows: list | None = None
) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, program in policy.audit_annotations:
        try:
            value = run_program(program, activation, rows, key=key)
        except EvalFailure as err:
            raise EvalFailure(f"failed to evaluate auditAnnotation '{key}': {err.message}") from None
        if isinstance(value, str):
            if value:
                out[key] = value
        else:  # Kyverno converts to a Go string: null is an error too
            raise EvalFailure(
                f"failed to convert auditAnnotation '{key}' expression: {conversion_error(value, 'string')}"
            )
    return out


def evaluate_authz(policy: CompiledPolicy, payload: Any) -> RuleResponse:
    """An Envoy / HTTP policy on a CheckRequest payload (see evaluator.policies.kyverno_vpol.authz)."""
    from .authz import decide

    if policy.error is not None:
        return RuleResponse(policy.name, ERROR, policy.error)
    activation: dict[str, Any] = {"object": payload, "variables": {}}
    try:
        if not matches(policy, tuple(p for _, p in policy.match_conditions), activation):
            return RuleResponse(policy.name, SKIP, "request does not match")
        activation["variables"] = LazyVariables(policy.variables, activation)
        for validation in policy.validations:
            try:
                decided = decide(run_program(validation.program, activation), policy.mode)
            except CELEvalError as err:
                raise EvalFailure(err.message) from None
            if decided is not None:
                return RuleResponse(policy.name, decided[0], decided[1])
    except EvalFailure as err:
        return RuleResponse(policy.name, ERROR, err.message)
    return RuleResponse(policy.name, SKIP, "request does not match")
