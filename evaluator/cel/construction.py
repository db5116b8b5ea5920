"""Object construction for MutatingAdmissionPolicy: `Object{spec: Object.spec{...}}` and `JSONPatch{...}`.

Only the construction types the environment declares are accepted; the result is a plain dict (an apply
configuration or a patch operation) that the mutating layer interprets.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree

from evaluator.cel.errors import CELEvalError
from evaluator.cel.nodes import Node
from evaluator.cel.runtime import Ctx
from evaluator.cel.types import DYN, STRING, Type
from evaluator.cel.values import Optional

_JSONPATCH_FIELDS = {"op", "path", "value", "from"}


class ObjectValue(dict):
    """A constructed object; `type_name` is the CEL type it was built as (`Object.spec`, `JSONPatch`)."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str, fields: dict):
        super().__init__(fields)
        self.type_name = type_name


def constructed_field_type(t: Type, field: str, object_types: frozenset[str]) -> Type | None:
    """The type of a field of a constructed value (`JSONPatch{...}.op`), or None for other types."""
    if t.name.split(".", 1)[0] not in object_types:
        return None
    if t.name == "JSONPatch":
        return STRING if field in ("op", "path", "from") else DYN
    return DYN


def compile_object(c, t: Tree):
    type_name = c.qualified_name(t.children[0])
    lbrace = t.children[1]
    if type_name is None:
        raise c.fail("invalid type name in object construction", lbrace)
    root = type_name.split(".", 1)[0]
    if root not in c.env.object_types:
        raise c.fail(f"undeclared reference to '{type_name}' (in container '{c.env.container}')", lbrace)
    fields: list[tuple[str, Any, bool]] = []
    seen = set()
    inits = next((ch for ch in t.children[2:] if isinstance(ch, Tree)), None)
    for init in _inits(inits):
        optional = init.data == "fieldinit_opt"
        kids = init.children
        name_token = next(k for k in kids if isinstance(k, Token) and k.type in ("IDENT", "QUOTED_IDENT"))
        name = str(name_token).strip("`")
        if name in seen:
            raise c.fail(f"duplicate field name: {name}", name_token)
        seen.add(name)
        if root == "JSONPatch" and name not in _JSONPATCH_FIELDS:
            raise c.fail(f"undefined field '{name}'", name_token)
        value = c.compile(next(k for k in kids if isinstance(k, Tree)))
        fields.append((name, value.fn, optional))

    def construct(ctx: Ctx) -> ObjectValue:
        ctx.cost += 40
        out = {}
        for name, fn, optional in fields:
            v = fn(ctx)
            if optional:
                if type(v) is not Optional:
                    raise CELEvalError("no such overload")
                if not v.has_value:
                    continue
                v = v.value
            out[name] = v
        return ObjectValue(type_name, out)

    return Node(construct, Type(type_name))


def _inits(t: Tree | None) -> list[Tree]:
    """The field initialisers of `fieldinits`, in source order (not those of nested constructions)."""
    if t is None:
        return []
    out: list[Tree] = []
    lst = next((k for k in t.children if isinstance(k, Tree) and k.data == "fieldinit_list"), None)
    while lst is not None:
        kids = [k for k in lst.children if isinstance(k, Tree)]
        init = kids[-1]
        child = init.children[0]
        out.append(child if isinstance(child, Tree) and child.data == "fieldinit_opt" else init)
        lst = kids[0] if len(kids) == 2 and kids[0].data == "fieldinit_list" else None
    out.reverse()
    return out
