"""OpenAPI schemas of Kubernetes kinds: the built-in definitions and CustomResourceDefinitions.

Built-in kinds come from the Kubernetes definitions shipped by the `kubernetes-validate` package (the
newest `vX.Y.Z-local/_definitions.json`, which keeps the `x-kubernetes-*` extensions and the
`x-kubernetes-group-version-kind` index). That file is JSON Schema converted from the server's OpenAPI,
so `normalize()` turns a node back into the OpenAPI form the API server reads: one `type` (the first
that is not `null`) and `format: int-or-string` for IntOrString, whose definition lost its format in the
conversion. Custom kinds come from the `openAPIV3Schema` of a CustomResourceDefinition, with the
`apiVersion`, `kind` and `metadata` (ObjectMeta) properties the API server publishes for every CRD.

Everything loads lazily, once per process. This is the one loader of built-in schemas: callers that need
the raw definitions (`builtin_definitions()`) or a kind's root (`resolve()`) share the same parse.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.k8s.kinds import APIEXTENSIONS_GROUP, CUSTOM_RESOURCE_DEFINITION

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_REF_PREFIXES = ("#/$defs/", "#/definitions/", "#/components/schemas/")
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-local$")


# -- the built-in definitions ------------------------------------------------------------------------
def definitions_file() -> Path | None:
    """The newest `_definitions.json` of the installed kubernetes-validate (None when not installed)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0]) / "kubernetes-json-schema"
    if not root.is_dir():
        return None
    versions = []
    for child in root.iterdir():
        match = _VERSION_DIR.match(child.name)
        if match and (child / "_definitions.json").is_file():
            versions.append((tuple(int(x) for x in match.groups()), child / "_definitions.json"))
    return max(versions)[1] if versions else None


@functools.lru_cache(maxsize=1)
def builtin_definitions() -> Mapping[str, Any]:
    """Definition name -> raw schema, e.g. `io.k8s.api.apps.v1.Deployment` (empty when unavailable)."""
    path = definitions_file()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data.get("$defs") or data.get("definitions") or {}


@functools.lru_cache(maxsize=1)
def builtin_source() -> str:
    path = definitions_file()
    return f"kubernetes-validate {path.parent.name}" if path else "none"


@functools.lru_cache(maxsize=1)
def _gvk_index() -> dict[tuple[str, str, str], str]:
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in builtin_definitions().items():
        for gvk in (schema.get("x-kubernetes-group-version-kind") or []) if isinstance(schema, Mapping) else []:
            if isinstance(gvk, Mapping):
                key = (str(gvk.get("group") or ""), str(gvk.get("version") or ""), str(gvk.get("kind") or ""))
                index.setdefault(key, name)
    return index


def builtin_definition_name(group: str, version: str, kind: str) -> str | None:
    """The definition of a built-in kind, found through its `x-kubernetes-group-version-kind`."""
    return _gvk_index().get((group, version, kind))


def ref_name(schema: Mapping[str, Any]) -> str | None:
    """The definition a schema refers to (`$ref`, or a `$ref` wrapped in `allOf` to keep a description)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        for prefix in _REF_PREFIXES:
            if ref.startswith(prefix):
                return ref[len(prefix) :]
        return ref.rsplit("/", 1)[-1]
    for part in schema.get("allOf") or ():
        if isinstance(part, Mapping):
            name = ref_name(part)
            if name is not None:
                return name
    return None


def normalize(name: str | None, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A definition as the server's OpenAPI has it (IntOrString keeps its `int-or-string` format)."""
    if name == INT_OR_STRING:
        return {"format": "int-or-string", "description": schema.get("description", "")}
    return schema


# -- CustomResourceDefinitions ----------------------------------------------------------------------------
def is_crd(document: Any) -> bool:
    return (
        isinstance(document, Mapping)
        and document.get("kind") == CUSTOM_RESOURCE_DEFINITION
        and str(document.get("apiVersion") or "").startswith(APIEXTENSIONS_GROUP + "/")
    )


def crd_version_schema(crd: Mapping[str, Any], group: str, version: str, kind: str) -> Mapping | None:
    """The `openAPIV3Schema` a CRD declares for group/version/kind (None when it does not serve it)."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    names = spec.get("names") if isinstance(spec.get("names"), Mapping) else {}
    if spec.get("group") != group or names.get("kind") != kind:
        return None
    for entry in spec.get("versions") or []:
        if isinstance(entry, Mapping) and entry.get("name") == version:
            schema = (
                (entry.get("schema") or {}).get("openAPIV3Schema") if isinstance(entry.get("schema"), Mapping) else None
            )
            if isinstance(schema, Mapping):
                return schema
            break
    legacy = spec.get("validation")
    schema = legacy.get("openAPIV3Schema") if isinstance(legacy, Mapping) else None
    return schema if isinstance(schema, Mapping) else None


def published_crd_schema(raw: Mapping[str, Any]) -> dict:
    """The CRD schema as the API server publishes it: `apiVersion`, `kind` and ObjectMeta `metadata` added.

    A copy; the document is left untouched.
    """
    root = dict(raw)
    properties = dict(raw.get("properties") or {}) if isinstance(raw.get("properties"), Mapping) else {}
    properties["apiVersion"] = {"type": "string"}
    properties["kind"] = {"type": "string"}
    properties["metadata"] = {"$ref": f"#/$defs/{OBJECT_META}"}
    root["properties"] = properties
    root.setdefault("type", "object")
    return root


# -- resolution ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResolvedSchema:
    """A kind's root schema; `$ref`s in it point into `definitions`. `origin` is "built-in" or "crd"."""

    root: Mapping[str, Any]
    definitions: Mapping[str, Any]
    origin: str


def resolve(group: str, version: str, kind: str, crds: tuple[Mapping, ...] | list = ()) -> ResolvedSchema | None:
    """The schema of group/version/kind: the built-in definitions first, then the given CRDs.

    This is the order of the API server's resolver (generated definitions, then OpenAPI discovery).
    """
    definitions = builtin_definitions()
    name = builtin_definition_name(group, version, kind)
    if name is not None:
        return ResolvedSchema(definitions[name], definitions, "built-in")
    for crd in crds:
        if not is_crd(crd):
            continue
        raw = crd_version_schema(crd, group, version, kind)
        if raw is not None:
            return ResolvedSchema(published_crd_schema(raw), definitions, "crd")
    return None
