"""Compile an ImageValidatingPolicy as Kyverno's ivpol compiler does (pkg/image/verification/evaluator/
compiler.go): matchConditions, matchImageReferences (glob or a CEL expression over `ref`), image extractors
(the pod / pod controller / CronJob defaults for the request's resource, then `spec.images`), variables,
attestors, validations, auditAnnotations and the CEL PolicyExceptions naming the policy. The first problem
stops compilation; Kyverno reports it as `failed to compile policy: <path>: Invalid value: ...`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.types import DYN
from evaluator.policies.kyverno_vpol import compiler as vpol_compiler
from evaluator.policies.kyverno_vpol.compiler import CompiledException, FieldCompileError, Validation, mappings
from evaluator.policies.kyverno_vpol.libs import LIBRARY_VARIABLES

from . import spec as sp
from .globs import GlobError, compile_glob
from .libs import IVPOL_REGISTRY

DECLARED = (
    "object",
    "oldObject",
    "request",
    "namespaceObject",
    "variables",
    "images",
    "attestors",
    "attestations",
) + LIBRARY_VARIABLES

_CONTAINERS = ("containers", "initContainers", "ephemeralContainers")
_POD = "(object != null ? object : oldObject).spec"
DEFAULT_EXTRACTORS: dict[tuple[str, str], str] = {
    ("", "pods"): _POD,
    **{("apps", r): _POD + ".template.spec" for r in ("deployments", "statefulsets", "daemonsets", "replicasets")},
    ("batch", "jobs"): _POD + ".template.spec",
    ("batch", "cronjobs"): _POD + ".jobTemplate.spec.template.spec",
}


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    return replace(
        _cel.admission_env(), variables=dict.fromkeys(DECLARED, DYN), registry=IVPOL_REGISTRY, name="kyverno-ivpol"
    )


@functools.lru_cache(maxsize=1)
def _match_image_environment() -> Any:
    return replace(_cel.admission_env(), variables={"ref": DYN}, registry=IVPOL_REGISTRY, name="kyverno-ivpol-ref")


@dataclass
class ImageMatch:
    glob: Any = None  # a compiled pattern
    program: Any = None  # a CEL program over `ref`


@dataclass
class CompiledImagePolicy(sp.Named):
    document: Mapping[str, Any]
    spec: Mapping[str, Any]
    match_constraints: Mapping[str, Any] | None = None
    match_conditions: tuple[tuple[str, Any], ...] = ()
    image_matches: tuple[ImageMatch, ...] = ()
    extractors: tuple[tuple[str, Any], ...] = ()  # spec.images (the defaults are added per request)
    variables: tuple[tuple[str, Any], ...] = ()
    attestors: dict[str, Any] = field(default_factory=dict)
    attestations: dict[str, str] = field(default_factory=dict)
    validations: tuple[Validation, ...] = ()
    audit_annotations: tuple[tuple[str, Any], ...] = ()
    exceptions: tuple[CompiledException, ...] = ()
    errors: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    @property
    def failure_policy(self) -> str:
        """Ignore turns matchCondition errors into no match (read by the ValidatingPolicy matcher)."""
        return sp.failure_policy(self.spec)


def _compile(path: str, expression: Any, want: str | None, env: Any = None) -> Any:
    return vpol_compiler.compile_field(path, expression, want, env or environment())


def default_extractor(group: str, resource: str) -> list[tuple[str, Any]]:
    """Kyverno's image extractors for a request's resource (pods, pod controllers, CronJobs)."""
    base = DEFAULT_EXTRACTORS.get((group, resource))
    if base is None:
        return []
    return [
        (name, _compile("spec.images", f"{base}.?{name}.orValue([]).map(e, e.image)", None)) for name in _CONTAINERS
    ]


def _image_match(i: int, match: Mapping[str, Any]) -> ImageMatch:
    if match.get("glob"):
        try:
            return ImageMatch(glob=compile_glob(str(match["glob"])))
        except GlobError as err:
            raise FieldCompileError(f"spec.matchImageReferences[{i}].glob", str(match["glob"]), str(err)) from None
    if match.get("expression"):
        path = f"spec.matchImageReferences[{i}].expression"
        return ImageMatch(program=_compile(path, match["expression"], "bool", _match_image_environment()))
    raise FieldCompileError(
        f"spec.matchImageReferences[{i}]", str(dict(match)), "either glob or expression must be set"
    )


def compile_policy(
    document: Mapping[str, Any], exceptions: list[Mapping[str, Any]], spec: Mapping[str, Any] | None = None
) -> CompiledImagePolicy:
    """The policy (or, with `spec`, one of its pod-controller autogen variants)."""
    spec = sp.spec_of(document) if spec is None else spec
    constraints = spec.get("matchConstraints")
    compiled = CompiledImagePolicy(
        document, spec, match_constraints=constraints if isinstance(constraints, Mapping) else None
    )
    try:
        compiled.match_conditions = tuple(
            (str(c.get("name") or ""), _compile(f"spec.matchConditions[{i}].expression", c.get("expression"), "bool"))
            for i, c in enumerate(mappings(spec.get("matchConditions")))
        )
        compiled.image_matches = tuple(
            _image_match(i, m) for i, m in enumerate(mappings(spec.get("matchImageReferences")))
        )
        compiled.extractors = tuple(
            (str(e.get("name") or ""), _compile(f"spec.images[{i}].expression", e.get("expression"), None))
            for i, e in enumerate(mappings(spec.get("images")))
        )
        compiled.variables = tuple(
            (str(v.get("name") or ""), _compile(f"spec.variables[{i}].expression", v.get("expression"), None))
            for i, v in enumerate(mappings(spec.get("variables")))
        )
        compiled.attestors = {str(a.get("name") or ""): dict(a) for a in mappings(spec.get("attestors"))}
        compiled.attestations = {str(a.get("name")): str(a.get("name")) for a in mappings(spec.get("attestations"))}
        compiled.validations = vpol_compiler.validations(spec, _compile, _compile)
        compiled.audit_annotations = vpol_compiler.audit_annotations(spec, _compile)
        compiled.exceptions = tuple(
            CompiledException(exc, vpol_compiler.exception_conditions(exc, _compile)) for exc in exceptions
        )
    except FieldCompileError as failed:
        compiled.errors = [{"path": failed.path, "expression": failed.expression, "message": failed.detail}]
        compiled.error = f"failed to compile policy: {failed.text()}"
    return compiled
