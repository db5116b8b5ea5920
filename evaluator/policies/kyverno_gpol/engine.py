"""Compile a GeneratingPolicy / NamespacedGeneratingPolicy once and run it on one admission request, as
Kyverno's gpol compiler and engine do (pkg/cel/policies/gpol/compiler, engine).

Compile (the first failure fails the policy, with its field path): variables, matchConditions, each
`generate` entry (an `expression`, or a `template` whose placeholders compile), auditAnnotations, then the
matchConditions of the CEL PolicyExceptions naming the policy. Run: `spec.matchConstraints` (no constraints
select nothing; a matching error is `error`), the exceptions (a full match: `skip`/`pass` with Kyverno's
exception message), the matchConditions (false: no response; an error: `error`), then every generation in
order with lazily evaluated `variables` and `generator`, then the audit annotations. Success is `pass`
"policy evaluated successfully" with the generated objects; a failure `error` "failed to evaluate policy: ...".
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.types import DYN
from evaluator.k8s.kinds import KYVERNO_GENERATING_POLICY_KINDS
from evaluator.policies.kyverno_vpol import spec as sp
from evaluator.policies.kyverno_vpol.compiler import (
    DECLARED,
    FieldCompileError,
    audit_annotations,
    compile_field,
    compiled_exceptions,
    mappings,
    resource_rules_required,
)
from evaluator.policies.kyverno_vpol.engine import (
    EvalFailure,
    Inputs,
    LazyVariables,
    all_true,
    exception_response,
    match_constraints,
    run_program,
)
from evaluator.policies.kyverno_vpol.libs import KYVERNO_REGISTRY, bindings

from .generator import GeneratorContext
from .template import Template, TemplateError

PASS, SKIP, ERROR = "pass", "skip", "error"
COMPILE_ERROR = "generating policy compiler 1.0 error: failed to compile policy"


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    return replace(
        _cel.admission_env(),
        variables=dict.fromkeys((*DECLARED, "generator"), DYN),
        registry=KYVERNO_REGISTRY,
        name="kyverno-gpol",
    )


def is_generating_policy(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and doc.get("kind") in KYVERNO_GENERATING_POLICY_KINDS
        and sp.api_group(doc)[0] == sp.GROUP
    )


def _enabled(spec: Mapping[str, Any], key: str, default: bool) -> bool:
    evaluation = spec.get("evaluation") if isinstance(spec.get("evaluation"), Mapping) else {}
    section = evaluation.get(key) if isinstance(evaluation.get(key), Mapping) else {}
    value = section.get("enabled")
    return default if value is None else value is True


@dataclass
class Generation:
    program: Any = None
    template: Template | None = None


@dataclass
class CompiledGeneratingPolicy(sp.NamedSpec):
    document: Mapping[str, Any]
    match_conditions: tuple[Any, ...] = ()
    variables: tuple[tuple[str, Any], ...] = ()
    generations: tuple[Generation, ...] = ()
    audit_annotations: tuple[tuple[str, Any], ...] = ()
    exceptions: tuple[tuple[Mapping[str, Any], tuple[Any, ...]], ...] = ()
    error: str | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def match_constraints(self) -> Mapping[str, Any] | None:
        found = self.spec.get("matchConstraints")
        return found if isinstance(found, Mapping) else None

    def settings(self) -> dict[str, bool]:
        spec = self.spec
        return {
            "admission": _enabled(spec, "admission", True),
            "generateExisting": _enabled(spec, "generateExisting", False),
            "synchronize": _enabled(spec, "synchronize", False),
            "orphanDownstreamOnPolicyDelete": _enabled(spec, "orphanDownstreamOnPolicyDelete", False),
        }


def _field(path: str, expression: Any, want: str | None) -> Any:
    return compile_field(path, expression, want, environment())


def _generation(i: int, entry: Mapping[str, Any]) -> Generation:
    tpl = entry.get("template")
    if isinstance(tpl, Mapping):
        path = f"spec.generate[{i}].template.value"
        interpolate = tpl.get("interpolate") == "cel"
        try:
            return Generation(template=Template(tpl.get("value"), interpolate, lambda e: _field(path, e, None)))
        except TemplateError as err:
            raise FieldCompileError(path, str(tpl.get("value") or ""), str(err)) from None
    return Generation(program=_field(f"spec.generate[{i}].expression", entry.get("expression"), None))


def compile_policy(document: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> CompiledGeneratingPolicy:
    compiled = CompiledGeneratingPolicy(document)
    spec = compiled.spec
    try:
        compiled.variables = tuple(
            (str(v.get("name") or ""), _field(f"spec.variables[{i}].expression", v.get("expression"), None))
            for i, v in enumerate(mappings(spec.get("variables")))
        )
        compiled.match_conditions = tuple(
            _field(f"spec.matchConditions[{i}].expression", c.get("expression"), "bool")
            for i, c in enumerate(mappings(spec.get("matchConditions")))
        )
        compiled.generations = tuple(_generation(i, g) for i, g in enumerate(mappings(spec.get("generate"))))
        compiled.audit_annotations = audit_annotations(spec, _field)
        compiled.exceptions = compiled_exceptions(document, exceptions, _field)
    except FieldCompileError as failed:
        compiled.errors = [{"path": failed.path, "expression": failed.expression, "message": failed.detail}]
        compiled.error = f"failed to compile policy {compiled.name} ([{COMPILE_ERROR}, {failed.text()}])"
    return compiled


def admission_errors(compiled: CompiledGeneratingPolicy) -> list[dict[str, Any]]:
    """What Kyverno's admission check of the policy (gpol.Validate) refuses: compile errors, and no
    matchConstraints with a resource rule."""
    out = list(compiled.errors)
    required = resource_rules_required(compiled.match_constraints)
    if required is not None:
        out.append(required)
    if not mappings(compiled.spec.get("generate")):
        out.append({"path": "spec.generate", "message": "spec.generate: Required value: at least one is required"})
    return out


@dataclass
class Generated:
    """One run's response: None `result` when the policy does not apply (no response at all)."""

    result: str | None
    message: str = ""
    objects: list[dict[str, Any]] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    path: str | None = None  # the policy field behind an error (where the editor points)


def run(
    compiled: CompiledGeneratingPolicy,
    inputs: Inputs,
    namespaced: Callable[[str, str], bool],
    *,
    cli: bool = False,
) -> Generated:
    """The policy on one request (objects as Kyverno hands them to the cluster, labels not yet added)."""
    if compiled.error is not None:
        return Generated(ERROR, compiled.error)
    matched, error = match_constraints(compiled, inputs)  # type: ignore[arg-type]
    if error is not None:
        return Generated(ERROR, f"failed to execute matching: {error}")
    if not matched:
        return Generated(None)
    activation: dict[str, Any] = {
        "object": inputs.object,
        "oldObject": inputs.old_object,
        "request": inputs.request,
        "namespaceObject": inputs.namespace_object,
        "variables": {},
    }
    activation.update(bindings(inputs.context, compiled.namespace))
    where = ["spec"]
    try:
        return _evaluate(compiled, activation, GeneratorContext(compiled.namespace, namespaced, cli), where)
    except EvalFailure as err:
        return Generated(ERROR, f"failed to evaluate policy: {err.message}", path=where[-1])


def _evaluate(
    compiled: CompiledGeneratingPolicy, activation: dict[str, Any], sink: GeneratorContext, where: list[str]
) -> Generated:
    """The policy past its matchConstraints; `where` gets the path of each stage as it starts."""
    matched, full, images, values = [], False, [], []
    for exc, conditions in compiled.exceptions:
        try:
            hit = all_true(conditions, activation)
        except EvalFailure:
            if full:
                continue
            raise
        if hit:
            matched.append(exc)
            exc_spec = sp.spec_of(exc)
            if not exc_spec.get("images") and not exc_spec.get("allowedValues"):
                full = True
            elif not full:
                images += list(exc_spec.get("images") or [])
                values += list(exc_spec.get("allowedValues") or [])
    if full:
        response = exception_response(matched)
        return Generated(response.status, response.message, exceptions=response.exceptions)
    activation["exceptions"] = {"allowedImages": images, "allowedValues": values}
    where.append("spec.matchConditions")
    if not all_true(compiled.match_conditions, activation):
        return Generated(None)
    activation["variables"] = LazyVariables(compiled.variables, activation)
    activation["generator"] = sink
    for i, generation in enumerate(compiled.generations):
        where.append(f"spec.generate[{i}]")
        if generation.template is not None:
            _apply_template(compiled, generation.template, activation, sink)
        else:
            run_program(generation.program, activation)
    annotations: dict[str, str] = {}
    for i, (key, program) in enumerate(compiled.audit_annotations):
        where.append(f"spec.auditAnnotations[{i}].valueExpression")
        value = run_program(program, activation)
        if not isinstance(value, str):
            raise EvalFailure(f'failed to convert auditAnnotation "{key}" expression: not a string')
        if value:
            annotations[key] = value
    return Generated(PASS, "policy evaluated successfully", sink.objects, annotations)


def _apply_template(
    compiled: CompiledGeneratingPolicy, template: Template, activation: dict[str, Any], sink: GeneratorContext
) -> None:
    try:
        resources = template.render(lambda program: run_program(program, activation))
    except (TemplateError, EvalFailure) as err:
        raise EvalFailure(f"failed to render generation template: {getattr(err, 'message', None) or err}") from None
    grouped: dict[str, list[dict[str, Any]]] = {}
    for resource in resources:
        namespace = str((resource.get("metadata") or {}).get("namespace") or "")
        if compiled.namespace:
            if not namespace:
                namespace = compiled.namespace
            elif namespace != compiled.namespace:
                raise EvalFailure(
                    f'cross-namespace generation denied: a policy in namespace "{compiled.namespace}" cannot '
                    f'generate resources into namespace "{namespace}"'
                )
        grouped.setdefault(namespace, []).append(resource)
    for namespace, items in grouped.items():
        try:
            sink.generate(namespace, items)
        except Exception as err:
            raise EvalFailure(f"failed to generate resources: {getattr(err, 'message', None) or err}") from None
