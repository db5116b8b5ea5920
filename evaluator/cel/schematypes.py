"""Object (struct) types for the static checker: built from OpenAPI schemas or declared by hand.

The API server type-checks policy expressions with `object` typed by the matched kind's schema
(apiserver `pkg/cel/common/schemas.go` SchemaDeclType). `schema_type()` is that conversion: integers are
`int`, `date-time` strings `timestamp`, `additionalProperties` objects `map(string, V)`, int-or-string
`dyn`, objects with properties a struct whose field names are escaped as `cel/escaping.go` does, and a
schema with no usable type is left out (so is the property that holds it). Struct fields are built on
first use, so typing a Deployment costs only the paths an expression touches.

An `ObjectType` prints (and compares) by its name, as cel-go's struct types do: nested types are named
`<root>.<field>`, `<...>.@idx` for list items and `<...>.@elem` for map values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.cel.escaping import RESERVED, escape
from evaluator.k8s.schemas import ref_name
from evaluator.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    DYN,
    INT,
    STRING,
    TIMESTAMP,
    Type,
    list_of,
    map_of,
)

FieldsFn = Callable[[], Mapping[str, Type]]


class ObjectType(Type):
    """A struct type: a name and its fields (escaped name -> Type), computed once on first lookup."""

    is_struct = True  # `null` is assignable to it (types.legacy_nullable)
    _source: Mapping[str, Type] | FieldsFn  # set once in __init__ (the base class is frozen)
    _fields: Mapping[str, Type] | None

    def __init__(self, name: str, fields: Mapping[str, Type] | FieldsFn):
        super().__init__(name, ())
        object.__setattr__(self, "_source", fields)
        object.__setattr__(self, "_fields", fields if isinstance(fields, Mapping) else None)

    @property
    def fields(self) -> Mapping[str, Type]:
        if self._fields is None:
            object.__setattr__(self, "_fields", dict(self._source()))
        return self._fields

    def field_type(self, name: str) -> Type | None:
        return self.fields.get(name)

    def __repr__(self) -> str:
        return f"ObjectType({self.name!r})"


def struct_target(t: Type) -> tuple[ObjectType, bool] | None:
    """The struct a selection applies to, unwrapping `optional_type(struct)`; and whether it was optional."""
    if isinstance(t, ObjectType):
        return t, False
    if t.name == "optional_type" and t.params and isinstance(t.params[0], ObjectType):
        return t.params[0], True
    return None


# -- OpenAPI schema -> type ------------------------------------------------------------------------------
class SchemaContext:
    """Resolves `$ref`s against `definitions`; `normalize(name, schema)` adapts a definition on the way."""

    def __init__(
        self,
        definitions: Mapping[str, Any],
        normalize: Callable[[str | None, Mapping[str, Any]], Mapping[str, Any]] | None = None,
        keyword_fields: bool = False,
    ):
        self.definitions = definitions
        self.normalize = normalize or (lambda name, schema: schema)
        # DeclTypeProvider.recognizeKeywordAsFieldName (CRD rules since 1.31): `self.namespace` finds `__namespace__`.
        self.keyword_fields = keyword_fields

    def deref(
        self, schema: Mapping[str, Any], visiting: frozenset[str]
    ) -> tuple[Mapping[str, Any] | None, frozenset[str]]:
        """The schema a `$ref` points to (as the resolver's PopulateRefs inlines it); a cycle is `{type: object}`."""
        name = ref_name(schema)
        if name is None:
            return schema, visiting
        if name in visiting:
            return {"type": "object"}, visiting
        target = self.definitions.get(name)
        if not isinstance(target, Mapping):
            return None, visiting
        return self.normalize(name, target), visiting | {name}


def _type_of(schema: Mapping[str, Any]) -> str:
    value = schema.get("type")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return next((str(v) for v in value if v != "null"), "")
    return ""


def _type_contains(schema: Any, name: str) -> bool:
    if not isinstance(schema, Mapping):
        return False
    value = schema.get("type")
    return value == name or (isinstance(value, list) and name in value)


def _is_int_or_string(schema: Mapping[str, Any]) -> bool:
    return schema.get("format") == "int-or-string" or schema.get("x-kubernetes-int-or-string") is True


_STRING_FORMATS = {"byte": BYTES, "duration": DURATION, "date": TIMESTAMP, "date-time": TIMESTAMP}
_SCALARS = {"boolean": BOOL, "number": DOUBLE, "integer": INT}
_STRING_PROPERTY = {"type": "string"}


def schema_type(
    schema: Any, ctx: SchemaContext, name: str, resource_root: bool = False, visiting: frozenset[str] = frozenset()
) -> Type | None:
    """SchemaDeclType: the CEL type of a schema, or None when the schema is not exposed to CEL."""
    if not isinstance(schema, Mapping):
        return None
    schema, visiting = ctx.deref(schema, visiting)
    if schema is None:
        return None
    if _is_int_or_string(schema):
        return DYN
    if resource_root:
        schema = _with_type_and_object_meta(schema, ctx, visiting)
    kind = _type_of(schema)
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, Mapping):
            return None
        item_type = schema_type(items, ctx, name + ".@idx", _embedded(items), visiting)
        return list_of(item_type) if item_type is not None else None
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping):
            value_type = schema_type(extra, ctx, name + ".@elem", _embedded(extra), visiting)
            return map_of(STRING, value_type) if value_type is not None else None
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        return ObjectType(name, lambda: _fields(properties, ctx, name, visiting))
    if kind == "string":
        return _STRING_FORMATS.get(schema.get("format"), STRING)
    return _SCALARS.get(kind)


def _embedded(schema: Mapping[str, Any]) -> bool:
    return schema.get("x-kubernetes-embedded-resource") is True


def _fields(properties: Mapping[str, Any], ctx: SchemaContext, name: str, visiting: frozenset[str]) -> dict[str, Type]:
    fields: dict[str, Type] = {}
    for prop_name, prop in properties.items():
        if not isinstance(prop, Mapping):
            continue
        escaped = escape(str(prop_name))
        if escaped is None:
            continue
        field_type = schema_type(prop, ctx, f"{name}.{escaped}", _embedded(prop), visiting)
        if field_type is not None:
            fields[escaped] = field_type
            if ctx.keyword_fields and escaped != prop_name and prop_name in RESERVED:
                fields[str(prop_name)] = field_type
    return fields


def _with_type_and_object_meta(
    schema: Mapping[str, Any], ctx: SchemaContext, visiting: frozenset[str]
) -> Mapping[str, Any]:
    """`kind`, `apiVersion` and `metadata.name`/`generateName` are always there at a resource root.

    A schema that declares them (as strings, metadata as an object with those two) is kept as it is;
    otherwise kind and apiVersion become strings and metadata is replaced by just name and generateName.
    """
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        meta = properties.get("metadata")
        meta = ctx.deref(meta, visiting)[0] if isinstance(meta, Mapping) else None
        meta_props = meta.get("properties") if isinstance(meta, Mapping) else None
        if (
            _type_contains(_deref(properties.get("kind"), ctx, visiting), "string")
            and _type_contains(_deref(properties.get("apiVersion"), ctx, visiting), "string")
            and _type_contains(meta, "object")
            and isinstance(meta_props, Mapping)
            and _type_contains(_deref(meta_props.get("name"), ctx, visiting), "string")
            and _type_contains(_deref(meta_props.get("generateName"), ctx, visiting), "string")
        ):
            return schema
    result = dict(schema)
    props = dict(properties) if isinstance(properties, Mapping) else {}
    props["kind"] = _STRING_PROPERTY
    props["apiVersion"] = _STRING_PROPERTY
    props["metadata"] = {"type": "object", "properties": {"name": _STRING_PROPERTY, "generateName": _STRING_PROPERTY}}
    result["properties"] = props
    return result


def _deref(schema: Any, ctx: SchemaContext, visiting: frozenset[str]) -> Any:
    return ctx.deref(schema, visiting)[0] if isinstance(schema, Mapping) else None


# -- hand-built types of the admission environment (apiserver plugin/cel/compile.go) ----------------------
def _struct(type_name: str, /, **fields: Type) -> ObjectType:
    return ObjectType(type_name, dict(fields))


def admission_request_type() -> ObjectType:
    gvk = _struct("kubernetes.GroupVersionKind", group=STRING, version=STRING, kind=STRING)
    gvr = _struct("kubernetes.GroupVersionResource", group=STRING, version=STRING, resource=STRING)
    user = _struct(
        "kubernetes.UserInfo",
        username=STRING,
        uid=STRING,
        groups=list_of(STRING),
        extra=map_of(STRING, list_of(STRING)),
    )
    return _struct(
        "kubernetes.AdmissionRequest",
        kind=gvk,
        resource=gvr,
        subResource=STRING,
        requestKind=gvk,
        requestResource=gvr,
        requestSubResource=STRING,
        name=STRING,
        namespace=STRING,
        operation=STRING,
        userInfo=user,
        dryRun=BOOL,
        options=DYN,
    )


def namespace_type() -> ObjectType:
    """The Namespace as the API server declares `namespaceObject` (a subset of the real kind)."""
    strings = list_of(STRING)
    condition = _struct(
        "kubernetes.NamespaceCondition",
        status=STRING,
        type=STRING,
        lastTransitionTime=TIMESTAMP,
        message=STRING,
        reason=STRING,
    )
    metadata = _struct(
        "kubernetes.NamespaceMetadata",
        name=STRING,
        generateName=STRING,
        namespace=STRING,
        labels=map_of(STRING, STRING),
        annotations=map_of(STRING, STRING),
        UID=STRING,
        creationTimestamp=TIMESTAMP,
        deletionGracePeriodSeconds=INT,
        deletionTimestamp=TIMESTAMP,
        generation=INT,
        resourceVersion=STRING,
        finalizers=strings,
    )
    return _struct(
        "kubernetes.Namespace",
        metadata=metadata,
        spec=_struct("kubernetes.NamespaceSpec", finalizers=strings),
        status=_struct("kubernetes.NamespaceStatus", conditions=list_of(condition), phase=STRING),
    )


def authorizer_type() -> ObjectType:
    """`authorizer` has no fields: `authorizer.requestResource` is not declared when type checking."""
    return ObjectType("kubernetes.authorization.Authorizer", {})


_KEPT = frozenset(
    {
        "bool",
        "bytes",
        "double",
        "google.protobuf.Duration",
        "int",
        "null_type",
        "string",
        "google.protobuf.Timestamp",
        "uint",
        "any",
    }
)


def variable_field_type(t: Type) -> Type:
    """How a variable's output type is declared on `variables` (composition.go convertCelTypeToDeclType).

    Primitives stay, lists and maps are converted element-wise, everything else (structs, optionals,
    opaque library types) becomes dyn.
    """
    if t.name in _KEPT and not t.params:
        return t
    if t.name == "list" and len(t.params) == 1:
        return list_of(variable_field_type(t.params[0]))
    if t.name == "map" and len(t.params) == 2:
        return map_of(variable_field_type(t.params[0]), variable_field_type(t.params[1]))
    return DYN


def variables_type(fields: Mapping[str, Type]) -> ObjectType:
    return ObjectType("kubernetes.variables", dict(fields))
