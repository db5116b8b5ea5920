"""Structural schemas of Kubernetes objects, as structured-merge-diff (a patch's merge) and Go's decoder (a
request's object) see them.

Built-in kinds come from the Kubernetes OpenAPI definitions shipped by the `kubernetes-validate` package
(its newest `vX.Y.Z-local/_definitions.json`, which keeps the `x-kubernetes-*` extensions); custom
resources from the `openAPIV3Schema` of their CustomResourceDefinition. A schema node answers what the
merge and the decoder need: struct / map / list / scalar, the list type (atomic, set, map + keys) and whether a
struct or map is atomic. Lists without `x-kubernetes-list-type` follow kube-openapi's schemaconv: a
`merge` patch strategy with a merge key makes a map list, `merge` alone a set, anything else atomic.
Everything loads lazily, once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.k8s import schemas

STRUCT, MAP, LIST, SCALAR, ANY = "struct", "map", "list", "scalar", "any"
ATOMIC, SET, ASSOCIATIVE = "atomic", "set", "map"

# Definitions that are scalars on the wire although OpenAPI gives them no simple type.
_SCALAR_DEFINITIONS = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "int-or-string",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "string",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "string",
}
# Free-form JSON: anything goes below them.
_ANY_DEFINITIONS = {
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
}
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


@dataclass(frozen=True)
class Node:
    """One resolved schema node. `go_name` is the definition's last segment (Go's struct name)."""

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)  # struct: field name -> raw schema
    element: Any = None  # map values / list items (raw schema)
    list_type: str = ATOMIC
    keys: tuple[str, ...] = ()
    atomic: bool = False  # struct or map replaced as a whole
    scalar: str | None = None  # string, integer, number, boolean, ...
    format: str | None = None
    go_name: str = ""
    go_type: str = ""  # a struct's Go type as Go's errors name it, with its package (`v1.DeploymentSpec`)
    open: bool = False  # unknown fields allowed (CRD preserve-unknown)


class Schema:
    """Resolves raw OpenAPI schema dicts (with `$ref`s into `definitions`) into Nodes, memoised."""

    def __init__(self, definitions: Mapping[str, Any], source: str = ""):
        self.definitions = definitions
        self.source = source
        self._nodes: dict[int, tuple[Any, Node]] = {}
        self._refs: dict[str, dict] = {}
        self._fields: dict[int, tuple[Node, dict[str, Node]]] = {}
        self._gvk_index: dict[tuple[str, str, str], str] | None = None

    # -- definitions -----------------------------------------------------------------------------
    def definition_for(self, group: str, version: str, kind: str) -> str | None:
        if self._gvk_index is None:
            index: dict[tuple[str, str, str], str] = {}
            for name, schema in self.definitions.items():
                for gvk in schema.get("x-kubernetes-group-version-kind") or []:
                    key = (str(gvk.get("group") or ""), str(gvk.get("version") or ""), str(gvk.get("kind") or ""))
                    index.setdefault(key, name)
            self._gvk_index = index
        return self._gvk_index.get((group, version, kind))

    def ref(self, name: str) -> dict:
        """The same reference each time: nodes are kept by their raw schema's identity, and a fresh one
        per object would be built again, and kept, for every object."""
        found = self._refs.get(name)
        if found is None:
            found = self._refs[name] = {"$ref": f"#/$defs/{name}"}
        return found

    # -- nodes -----------------------------------------------------------------------------------
    def node(self, raw: Any) -> Node:
        hit = self._nodes.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1]
        if not isinstance(raw, Mapping):
            return Node(ANY)
        built = self._build(raw)
        self._nodes[id(raw)] = (raw, built)
        return built

    def fields_of(self, struct: Node) -> dict[str, Node]:
        """A struct node's fields resolved, once per node (the node held, so that its id stays its own)."""
        found = self._fields.get(id(struct))
        if found is None or found[0] is not struct:
            found = self._fields[id(struct)] = (struct, {key: self.node(raw) for key, raw in struct.fields.items()})
        return found[1]

    def _build(self, raw: Mapping[str, Any], go_name: str = "", depth: int = 0) -> Node:
        ref = raw.get("$ref")
        if ref is None and isinstance(raw.get("allOf"), list) and len(raw["allOf"]) == 1:
            ref = (raw["allOf"][0] or {}).get("$ref")
        if isinstance(ref, str) and depth < 8:
            return self._build_ref(raw, ref, depth)
        return _build_inline(raw, go_name)

    def _build_ref(self, raw: Mapping[str, Any], ref: str, depth: int) -> Node:
        """A `$ref` (or a lone `allOf` one): well-known scalars and free-form definitions by name, else the
        target, with the referring property's extensions (list type, map type) winning over the target's."""
        name = ref.rsplit("/", 1)[-1]
        go_name = name.rsplit(".", 1)[-1]
        if name in _SCALAR_DEFINITIONS:
            return Node(SCALAR, scalar=_SCALAR_DEFINITIONS[name], go_name=go_name)
        if name in _ANY_DEFINITIONS or name not in self.definitions:
            return Node(ANY, go_name=go_name)
        built = _with_extensions(self._build(self.definitions[name], go_name, depth + 1), raw)
        package = name.rsplit(".", 2)[-2] if name.count(".") >= 2 else ""
        return replace(built, go_type=f"{package}.{go_name}") if built.kind == STRUCT and package else built


def _build_inline(raw: Mapping[str, Any], go_name: str) -> Node:
    """A schema without a reference: struct, list, map, free-form or scalar, in schemaconv's order."""
    if raw.get("x-kubernetes-int-or-string"):
        return Node(SCALAR, scalar="int-or-string")
    types = _types(raw)
    properties = raw.get("properties")
    if isinstance(properties, Mapping) and properties:
        open_ = bool(raw.get("x-kubernetes-preserve-unknown-fields"))
        return _with_extensions(Node(STRUCT, fields=dict(properties), go_name=go_name, open=open_), raw)
    if "array" in types or "items" in raw:
        return _with_extensions(Node(LIST, element=raw.get("items")), raw)
    additional = raw.get("additionalProperties")
    if isinstance(additional, Mapping):
        return _with_extensions(Node(MAP, element=additional), raw)
    if raw.get("x-kubernetes-preserve-unknown-fields") or raw.get("x-kubernetes-embedded-resource"):
        return Node(ANY, go_name=go_name)
    if "object" in types:
        # An object without properties: an empty struct for built-ins (Go struct{}), free-form otherwise.
        return _with_extensions(Node(STRUCT, fields={}, go_name=go_name), raw) if go_name else Node(ANY)
    return _build_scalar(raw, types, go_name)


def _build_scalar(raw: Mapping[str, Any], types: list[str], go_name: str) -> Node:
    scalar = next((t for t in types if t in ("string", "integer", "number", "boolean")), None)
    if scalar is not None:
        return Node(SCALAR, scalar=scalar, format=raw.get("format"))
    if isinstance(raw.get("oneOf") or raw.get("anyOf"), list):
        return Node(SCALAR, scalar="int-or-string")
    return Node(ANY, go_name=go_name)


def _types(raw: Mapping[str, Any]) -> list[str]:
    value = raw.get("type")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _with_extensions(node: Node, raw: Mapping[str, Any]) -> Node:
    """Apply the x-kubernetes list/map extensions of `raw` (schemaconv's rules) to `node`."""
    if node.kind == LIST:
        list_type = raw.get("x-kubernetes-list-type")
        keys = tuple(str(k) for k in raw.get("x-kubernetes-list-map-keys") or ())
        if list_type in (ATOMIC, SET, ASSOCIATIVE):
            return replace(node, list_type=list_type, keys=keys if list_type == ASSOCIATIVE else ())
        strategy = str(raw.get("x-kubernetes-patch-strategy") or "")
        merge_key = raw.get("x-kubernetes-patch-merge-key")
        if "merge" in strategy.split(","):
            if merge_key:
                return replace(node, list_type=ASSOCIATIVE, keys=(str(merge_key),))
            return replace(node, list_type=SET)
        return node if not list_type else node
    if node.kind in (STRUCT, MAP):
        map_type = raw.get("x-kubernetes-map-type")
        if map_type == "atomic":
            return replace(node, atomic=True)
        if map_type == "granular":
            return replace(node, atomic=False)
    return node


# -- the built-in definitions ------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def builtin_schema() -> Schema | None:
    """The newest Kubernetes definitions the installed kubernetes-validate ships (None when absent);
    loaded once by evaluator.k8s.schemas, which the type checker shares."""
    definitions = schemas.builtin_definitions()
    return Schema(definitions, source=schemas.builtin_source()) if definitions else None


# -- schemas of objects --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ObjectSchema:
    """The schema for one kind: `root` raw schema resolved by `schema`; `typed` means a Go type backs it
    (strict decoding, API types); `note` says why lists are treated as atomic when no schema is known."""

    schema: Schema | None
    root: Any = None
    typed: bool = False
    note: str | None = None

    @property
    def known(self) -> bool:
        return self.schema is not None and self.root is not None

    def root_node(self) -> Node:
        return self.schema.node(self.root) if self.known else Node(ANY)


def _split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def schema_for(api_version: str, kind: str, crds: list[Mapping[str, Any]] = ()) -> ObjectSchema:
    """The schema of objects of apiVersion/kind: a built-in definition, else a CRD's openAPIV3Schema."""
    group, version = _split_api_version(str(api_version or ""))
    builtin = builtin_schema()
    if builtin is not None:
        name = builtin.definition_for(group, version, str(kind or ""))
        if name is not None:
            return ObjectSchema(builtin, builtin.ref(name), typed=True)
    for crd in crds:
        raw = schemas.crd_version_schema(crd, group, version, str(kind or ""))
        if raw is not None:
            schema, root = _crd_schema(raw, builtin)
            return ObjectSchema(schema, root, typed=False)
    missing = "" if builtin is not None else " (the kubernetes-validate package with the built-in schemas is missing)"
    return ObjectSchema(
        None,
        None,
        note=f"no schema is known for {api_version}, Kind={kind}{missing}: every list "
        "is treated as atomic (replaced as a whole) and unknown fields are kept",
    )


def _crd_schema(raw: Mapping[str, Any], builtin: Schema | None) -> tuple[Schema, dict]:
    """A Schema whose definitions are the built-ins (for metadata), and a copy of the CRD root with the
    implicit apiVersion, kind and metadata fields the API server adds (the document is left untouched)."""
    definitions = builtin.definitions if builtin is not None else {}
    schema = Schema(definitions, source="CustomResourceDefinition")
    root = dict(raw)
    if isinstance(raw.get("properties"), Mapping):
        properties = dict(raw["properties"])
        properties.setdefault("apiVersion", {"type": "string"})
        properties.setdefault("kind", {"type": "string"})
        meta = properties.get("metadata")
        if OBJECT_META in definitions and (not isinstance(meta, Mapping) or not meta.get("properties")):
            properties["metadata"] = {"$ref": f"#/$defs/{OBJECT_META}"}
        root["properties"] = properties
    return schema, root


# -- walks ------------------------------------------------------------------------------------------------
def child_node(objschema: ObjectSchema, node: Node, token: str) -> Node:
    """The schema node one step below `node` (a struct field, a map value or a list item)."""
    schema = objschema.schema
    if schema is None:
        return Node(ANY)
    if node.kind == STRUCT:
        raw = node.fields.get(token)
        return schema.node(raw) if raw is not None else Node(ANY)
    if node.kind in (MAP, LIST):
        return schema.node(node.element) if node.element is not None else Node(ANY)
    return Node(ANY)
