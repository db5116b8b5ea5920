"""The typed environments a policy's expressions are checked in, as the API server's type checker builds them.

For each checked kind: `object`/`oldObject` typed by the kind's schema (a resource root named
`<Kind><number>`), `params` by the paramKind's schema (or `dyn`; undeclared without a paramKind),
`request` and `namespaceObject` hand-built, `authorizer`, and `variables` with one field per policy
variable typed by the variable's compiled output. Built-in schemas come from evaluator.k8s.schemas,
custom kinds from the CustomResourceDefinitions among the project's documents.

Profiles: "server" is exactly the checker's environment (status.typeChecking); "runtime" and
"message" are what the plugin binds at admission time (`authorizer.requestResource` exists;
messageExpressions have no `authorizer`), used for our own diagnostics.
"""

from __future__ import annotations

import functools
import hashlib
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.cel.env import Env, for_version
from evaluator.cel.versions import active_version
from evaluator.cel.schematypes import (
    ObjectType,
    SchemaContext,
    admission_request_type,
    authorizer_type,
    namespace_type,
    schema_type,
    variable_field_type,
    variables_type,
)
from evaluator.cel.types import DYN, Type
from evaluator.k8s import schemas
from evaluator.k8s.restmapping import GVK
from evaluator.typechecking.checker import CheckResult, check_cached

SERVER, RUNTIME, MESSAGE = "server", "runtime", "message"
# What the admission plugin itself compiles with when a policy is created: object, oldObject and params
# are dyn there; its output types decide the "must evaluate to bool but got dyn" rejections.
PLUGIN, PLUGIN_MESSAGE = "plugin", "plugin-message"
_UNTYPED = (PLUGIN, PLUGIN_MESSAGE)


@dataclass(frozen=True)
class KindType:
    """A kind whose schema resolved: its CEL type (None: the schema converts to no type, so `dyn`)."""

    gvk: GVK
    type: Type | None
    key: tuple  # identifies the schema (definition name, or a digest of a CRD's schema)
    origin: str  # "built-in" | "crd"


def type_name(kind: str) -> str:
    """`<Kind><number>` as the server names the root type (it uses the clock's nanoseconds; ours is stable)."""
    return f"{kind}{zlib.crc32(kind.encode()) % 1_000_000_000}"


@functools.lru_cache(maxsize=1)
def _builtin_context() -> SchemaContext:
    return SchemaContext(schemas.builtin_definitions(), schemas.normalize)


@functools.lru_cache(maxsize=512)
def _builtin_kind(gvk: GVK) -> KindType | None:
    name = schemas.builtin_definition_name(gvk.group, gvk.version, gvk.kind)
    if name is None:
        return None
    root = schemas.builtin_definitions()[name]
    return KindType(
        gvk, schema_type(root, _builtin_context(), type_name(gvk.kind), True), ("built-in", name), "built-in"
    )


_CRD_TYPES: dict[tuple, KindType] = {}


def _crd_kind(gvk: GVK, crds: Sequence[Mapping]) -> KindType | None:
    resolved = schemas.resolve(gvk.group, gvk.version, gvk.kind, tuple(crds))
    if resolved is None:
        return None
    return _schema_kind(gvk, resolved.root, "crd")


def _schema_kind(gvk: GVK, root: Mapping, origin: str) -> KindType:
    """A kind typed by a raw schema (refs resolve into the built-in definitions), memoised by content."""
    digest = hashlib.sha1(json.dumps(root, sort_keys=True, default=str).encode()).hexdigest()
    key = (origin, gvk, digest)
    hit = _CRD_TYPES.get(key)
    if hit is None:
        if len(_CRD_TYPES) > 256:
            _CRD_TYPES.clear()
        decl = schema_type(root, _builtin_context(), type_name(gvk.kind), True)
        hit = _CRD_TYPES.setdefault(key, KindType(gvk, decl, key, origin))
    return hit


def kind_type(gvk: GVK, crds: Sequence[Mapping] = (), overrides: Mapping[GVK, Any] | None = None) -> KindType | None:
    """The type of a kind, or None when no schema is known (the server then skips the kind).

    `overrides` (tests, what-if tools) replaces resolution for some kinds: a raw schema, or None for
    "not found".
    """
    if gvk.empty:
        return None
    if overrides and gvk in overrides:
        schema = overrides[gvk]
        return _schema_kind(gvk, schema, "given") if isinstance(schema, Mapping) else None
    return _builtin_kind(gvk) or (_crd_kind(gvk, crds) if crds else None)


_REQUEST = admission_request_type()
_NAMESPACE = namespace_type()
_AUTHORIZER = authorizer_type()
_RUNTIME_AUTHORIZER = ObjectType(
    "kubernetes.authorization.Authorizer", {"requestResource": Type("kubernetes.authorization.ResourceCheck")}
)


@dataclass(frozen=True)
class Declarations:
    """What one environment declares, apart from `variables`; `key` identifies it for the cache."""

    object: KindType | None  # None: no typed object (nothing resolved): `dyn`
    has_params: bool
    params: KindType | None
    profile: str = SERVER

    @property
    def key(self) -> tuple:
        if self.profile in _UNTYPED:
            return (None, self.has_params, None, self.profile, active_version())
        return (
            self.object.key if self.object else None,
            self.has_params,
            self.params.key if self.params else None,
            self.profile,
            active_version(),
        )

    def env(self, variable_types: Mapping[str, Type]) -> Env:
        typed = self.profile not in _UNTYPED
        object_type = (self.object.type if self.object and typed else None) or DYN
        names: dict[str, Type] = {
            "namespaceObject": _NAMESPACE,
            "request": _REQUEST,
            "object": object_type,
            "oldObject": object_type,
        }
        if self.has_params:
            names["params"] = (self.params.type if self.params and typed else None) or DYN
        if self.profile == SERVER:
            names["authorizer"] = _AUTHORIZER
        elif self.profile in (RUNTIME, PLUGIN):
            names["authorizer"] = _RUNTIME_AUTHORIZER
        names["variables"] = variables_type(variable_types)
        return for_version(Env(variables=names), active_version())


@dataclass
class TypedEnvironment:
    """The environment after the policy's variables were compiled in it, in order."""

    declarations: Declarations
    variable_types: dict[str, Type]
    variable_results: list[CheckResult]

    @property
    def key(self) -> tuple:
        return (self.declarations.key, tuple((n, str(t)) for n, t in self.variable_types.items()))

    def check(self, expression: str) -> CheckResult:
        return check_cached(expression, self.declarations.env(self.variable_types), self.key)


def compile_variables(declarations: Declarations, variables: Sequence[tuple[str, str]]) -> TypedEnvironment:
    """Compile `spec.variables` in order; each adds a field typed by its output (dyn when it fails)."""
    types: dict[str, Type] = {}
    results: list[CheckResult] = []
    for name, expression in variables:
        env = TypedEnvironment(declarations, dict(types), [])
        result = env.check(expression)
        results.append(result)
        output = result.output_type if result.ok and result.output_type is not None else DYN
        types[name] = variable_field_type(output)
    return TypedEnvironment(declarations, types, results)


def policy_variables(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for v in spec.get("variables") or []:
        if isinstance(v, Mapping) and isinstance(v.get("name"), str):
            out.append((v["name"], v.get("expression") if isinstance(v.get("expression"), str) else ""))
    return out
