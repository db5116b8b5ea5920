"""Compiles cel-python's parse tree into Python closures, checking types against the registry on the way.

Each node becomes `fn(ctx) -> value`; CEL errors are `CELEvalError` exceptions that `&&`, `||`, `?:` and
the `all`/`exists` macros absorb as CEL's error-value semantics require. A node also carries its static
type (often `dyn`, since admission objects are untyped here) and, for constants, its value, so calls on
constants can be validated and folded at compile time.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree

from evaluator.cel import aggregates
from evaluator.cel import operators as ops
from evaluator.cel.env import Env
from evaluator.cel.versions import macro_available
from evaluator.cel.errors import CELEvalError, _Abort
from evaluator.cel.literals import LiteralError, parse_int, parse_string, parse_uint
from evaluator.cel.registry import NOT_CONSTANT, Overload, constant_validators
from evaluator.cel.nodes import CompileIssue, Fn, Node, const_node, first_token, position
from evaluator.cel.runtime import Ctx
from evaluator.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DYN,
    INT,
    NULL,
    STRING,
    UINT,
    Type,
    assignable,
    join,
    optional_of,
    substitute,
)
from evaluator.cel.closures import (
    binary_op,
    charged_const,
    logic,
    make_call,
    make_index,
    relative_attribute,
    make_select,
    opaque_types,
    slot_reader,
    unary_call,
    var_reader,
)
from evaluator.cel.construction import constructed_field_type
from evaluator.cel.escaping import unescape_field
from evaluator.cel.grammar import unwrap
from evaluator.cel.schematypes import ObjectType, struct_target
from evaluator.cel.values import CelType


# Type names usable as identifiers.
_TYPE_IDENTS = {
    "int": "int",
    "uint": "uint",
    "double": "double",
    "bool": "bool",
    "string": "string",
    "bytes": "bytes",
    "list": "list",
    "map": "map",
    "null_type": "null_type",
    "type": "type",
    "google.protobuf.Timestamp": "google.protobuf.Timestamp",
    "google.protobuf.Duration": "google.protobuf.Duration",
    "optional_type": "optional_type",
}


def _checked(text: str) -> str:
    """Types as cel-go's checker prints them in errors (FormatCheckedType: the null type is `null`)."""
    return text.replace("null_type", "null")


class Compiler:
    def __init__(self, env: Env, source: str):
        self.env = env
        self.source = source
        self.scopes: list[dict[str, tuple[int, Type]]] = []
        self.nslots = 0
        self.exempt_depth = 0  # inside arguments of a call exempt from the homogeneous-literal rule

    # --- helpers -------------------------------------------------------------------------------
    def fail(self, message: str, at: Tree | Token) -> CompileIssue:
        line, col = position(at)
        return CompileIssue(message, line, col)

    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def lookup_local(self, name: str) -> tuple[int, Type] | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def compile(self, tree: Tree) -> Node:
        tree = unwrap(tree)
        method = getattr(self, "c_" + tree.data, None)
        if method is None:
            raise self.fail(f"unsupported syntax: {tree.data}", tree)
        return method(tree)

    # --- logic ---------------------------------------------------------------------------------
    def c_expr(self, t: Tree) -> Node:
        cond_tree, qmark, a_tree, b_tree = t.children
        cond, a, b = self.compile(cond_tree), self.compile(a_tree), self.compile(b_tree)
        self.require(cond, BOOL, "_?_:_", qmark, [cond, a, b])
        cf, af, bf = cond.fn, a.raw or a.fn, b.raw or b.fn

        def ternary(ctx: Ctx) -> Any:
            c = cf(ctx)
            if c is True:
                return af(ctx)
            if c is False:
                return bf(ctx)
            raise CELEvalError("no such overload")

        result = join(a.type, b.type)
        if result is None and self.env.check:
            # cel-go types `_?_:_` as (bool, A, A) -> A: the branches must unify (`'x' : null` does not).
            shown = ", ".join(str(o.type) for o in (cond, a, b))
            raise self.fail(f"found no matching overload for '_?_:_' applied to '({_checked(shown)})'", qmark)
        return Node(ternary, result or DYN, attribute=True)

    def _chain(self, t: Tree, rule: str) -> tuple[list[Node], Token]:
        terms: list[Tree] = []
        op = None
        while t.data == rule and len(t.children) == 3:
            terms.append(t.children[2])
            op = t.children[1]
            t = unwrap(t.children[0])
        terms.append(t)
        terms.reverse()
        return [self.compile(x) for x in terms], op

    def c_conditionalor(self, t: Tree) -> Node:
        return self._logic(t, "conditionalor", "_||_", True)

    def c_conditionaland(self, t: Tree) -> Node:
        return self._logic(t, "conditionaland", "_&&_", False)

    def _logic(self, t: Tree, rule: str, fname: str, is_or: bool) -> Node:
        """A chain of `||` or `&&`: boolean operands, evaluated as one closure."""
        nodes, op = self._chain(t, rule)
        for n in nodes:
            self.require(n, BOOL, fname, op, nodes)
        return Node(logic([n.fn for n in nodes], is_or), BOOL)

    def require(self, node: Node, t: Type, fname: str, at: Any, operands: list[Node]) -> None:
        if self.env.check and not node.type.is_dyn and node.type != t:
            types = ", ".join(str(o.type) for o in operands)
            raise self.fail(f"found no matching overload for '{fname}' applied to '({_checked(types)})'", at)

    # --- binary operators ----------------------------------------------------------------------
    _BINARY = {
        "relation_lt": ("_<_", ops.lt),
        "relation_le": ("_<=_", ops.le),
        "relation_gt": ("_>_", ops.gt),
        "relation_ge": ("_>=_", ops.ge),
        "relation_eq": ("_==_", ops.equals),
        "relation_ne": ("_!=_", None),
        "relation_in": ("@in", None),
        "addition_add": ("_+_", ops.add),
        "addition_sub": ("_-_", ops.sub),
        "multiplication_mul": ("_*_", ops.mul),
        "multiplication_div": ("_/_", ops.div),
        "multiplication_mod": ("_%_", ops.mod),
    }

    def _binary(self, t: Tree) -> Node:
        op_tree, right_tree = t.children
        left_tree, op_token = op_tree.children
        name, impl = self._BINARY[op_tree.data]
        left, right = self.compile(left_tree), self.compile(right_tree)
        result_type = self.check_call(name, [left, right], False, op_token)
        fn = binary_op(name, impl, left.fn, right.fn, right.const if right.is_const else NOT_CONSTANT)
        return self.fold(Node(fn, result_type), [left, right])

    def fold(self, node: Node, operands: list[Node], free: bool = False) -> Node:
        """Precompute a call on constants once.

        cel-go's OptOptimize makes only aggregate literals, type conversions and constant-list membership
        free (`free=True`); any other call on constants still charges, at each evaluation, the cost it had.
        A call that fails is left to fail at evaluation, where CEL's error semantics apply.
        """
        if operands and all(o.is_const for o in operands):
            ctx = Ctx({}, 0, 1 << 62, None)
            try:
                value = node.fn(ctx)
            except (CELEvalError, _Abort):
                return node
            if free or ctx.cost == 0:
                return const_node(value, node.type)
            return Node(charged_const(value, ctx.cost), node.type, value)
        return node

    def c_relation(self, t: Tree) -> Node:
        return self._binary(t)

    c_addition = c_relation
    c_multiplication = c_relation

    def c_unary(self, t: Tree) -> Node:
        op_tree, operand_tree = t.children
        op_token = op_tree.children[0]
        if op_tree.data == "unary_neg":
            # `-` applied to a literal number is part of the literal in cel-go (so -9223372036854775808 works).
            operand = self.compile(operand_tree)
            rt = self.check_call("-_", [operand], False, op_token)
            return self.fold(Node(unary_call(ops.neg, operand.fn), rt), [operand])
        operand = self.compile(operand_tree)
        rt = self.check_call("!_", [operand], False, op_token)
        return self.fold(Node(unary_call(ops.logical_not, operand.fn), rt), [operand])

    # --- members -------------------------------------------------------------------------------
    def qualified_name(self, t: Tree) -> str | None:
        """`a.b.c` as a dotted name when the tree is only identifiers and selections (and not local)."""
        parts = []
        while True:
            t = unwrap(t)
            if t.data == "member_dot" and t.children[2].type == "IDENT":
                parts.append(str(t.children[2]))
                t = t.children[0]
            elif t.data == "ident":
                parts.append(str(t.children[0]))
                break
            elif t.data == "dot_ident":
                parts.append(str(t.children[1]))
                parts.append("")
                break
            else:
                return None
        return ".".join(reversed(parts))

    def resolve_name(self, name: str, at: Tree | Token) -> Node | None:
        """Resolve a (possibly qualified) identifier: locals, variables, then type names."""
        leading_dot = name.startswith(".")
        bare = name.lstrip(".")
        if not leading_dot and "." not in bare:
            local = self.lookup_local(bare)
            if local is not None:
                slot, ltype = local
                return Node(slot_reader(slot, 1), ltype, raw=slot_reader(slot, 0))
        candidates = [bare]
        if self.env.container and not leading_dot:
            parts = self.env.container.split(".")
            candidates = [".".join(parts[:i] + [bare]) for i in range(len(parts), 0, -1)] + [bare]
        for cand in candidates:
            if cand in self.env.variables:
                return Node(var_reader(cand, 1), self.env.variables[cand], raw=var_reader(cand, 0))
            tname = _TYPE_IDENTS.get(cand) or (cand if cand in opaque_types(self.env.registry) else None)
            if tname is not None:
                return const_node(CelType(tname), Type("type", (Type(tname),)))
        return None

    def undeclared(self, name: str, at: Tree | Token) -> Node:
        """A compile error when checking; without the checker (as cel-go) an error at evaluation."""
        if self.env.check:
            raise self.fail(f"undeclared reference to '{name}' (in container '{self.env.container}')", at)
        message = f"no such attribute: {name}"

        def unbound(ctx: Ctx) -> Any:
            raise CELEvalError(message)

        return Node(unbound, DYN)

    def c_ident(self, t: Tree) -> Node:
        token = t.children[0]
        node = self.resolve_name(str(token), token)
        return _as_attribute(node) if node is not None else self.undeclared(str(token), token)

    def c_dot_ident(self, t: Tree) -> Node:
        token = t.children[1]
        node = self.resolve_name("." + str(token), token)
        return _as_attribute(node) if node is not None else self.undeclared(str(token), token)

    def c_member_dot(self, t: Tree) -> Node:
        """A chain `base.f1.f2…` compiled in one pass: the longest prefix that names a variable or type
        (`google.protobuf.Timestamp`, `authorizer.requestResource`, a container-qualified name) is resolved
        once, and the remaining fields become selections; long chains cost no recursion."""
        chain: list[Tree] = []
        node = t
        while True:
            node = unwrap(node)
            if node.data != "member_dot":
                break
            chain.append(node)
            node = node.children[0]
        chain.reverse()  # innermost selection first
        base, consumed = self.resolve_prefix(node, chain)
        for sel in chain[consumed:]:
            base = self.select(base, sel.children[2], sel.children[1], optional=False)
        return base

    def resolve_prefix(self, base: Tree, chain: list[Tree]) -> tuple[Node, int]:
        """The node for `base` plus as many selections of `chain` as form a declared qualified name."""
        if base.data in ("ident", "dot_ident"):
            token = base.children[0] if base.data == "ident" else base.children[1]
            root = str(token)
            fields: list[str] = []
            for sel in chain:
                if sel.children[2].type != "IDENT":
                    break
                fields.append(str(sel.children[2]))
            is_local = base.data == "ident" and self.lookup_local(root) is not None
            if not is_local and fields:
                prefix = "." if base.data == "dot_ident" else ""
                for k in range(len(fields), 0, -1):
                    name = prefix + ".".join([root, *fields[:k]])
                    if root in self.env.variables and name.lstrip(".") not in self.env.variables:
                        continue  # a field of a variable, unless the dotted name is itself declared
                    node = self.resolve_name(name, chain[k - 1].children[1])
                    if node is not None:
                        return _as_attribute(node), k
        return self.compile(base), 0

    def c_member_dot_opt(self, t: Tree) -> Node:
        target = self.compile(t.children[0])
        return self.select(target, t.children[3], t.children[1], optional=True)

    def select(self, target: Node, field_token: Token, at: Token, optional: bool) -> Node:
        field = str(field_token)
        if field_token.type == "QUOTED_IDENT":
            field = field[1:-1]
            alt = None
        else:
            alt = unescape_field(field)
        fn = make_select(_attribute_fn(target), field, alt, optional)
        return Node(fn, self.select_type(target.type, field, at, optional), attribute=True)

    def select_type(self, tt: Type, field: str, at: Any, optional: bool) -> Type:
        """The static type of `target.field` (or `target.?field`); also checks has(target.field)."""
        if self.env.check:
            struct = struct_target(tt)
            if struct is not None:
                return self.struct_field_type(struct[0], field, at, optional or struct[1])
            constructed = constructed_field_type(tt, field, self.env.object_types)
            if constructed is not None:
                return optional_of(constructed) if optional else constructed
            # cel-go unwraps an optional operand for the check, and the result stays optional.
            was_optional = tt.name == "optional_type" and len(tt.params) == 1
            if was_optional:
                tt = tt.params[0]
            if not tt.is_dyn and tt.name != "map" and not optional:
                raise self.fail(f"type '{tt}' does not support field selection", at)
            optional = optional or was_optional
        result_type = tt.params[1] if tt.name == "map" and len(tt.params) == 2 else DYN
        return optional_of(result_type) if optional else result_type

    def struct_field_type(self, struct: ObjectType, field: str, at: Any, optional: bool) -> Type:
        """A field of a schema object type (cel-go checker: `undefined field` at the selection)."""
        field_type = struct.field_type(field)
        if field_type is None:
            raise self.fail(f"undefined field '{field}'", at)
        return optional_of(field_type) if optional else field_type

    def c_member_index(self, t: Tree) -> Node:
        target, index = self.compile(t.children[0]), self.compile(t.children[2])
        rt = self.check_call("_[_]", [target, index], False, t.children[1])
        return Node(make_index(_attribute_fn(target), index.raw or index.fn, optional=False), rt, attribute=True)

    def c_member_index_opt(self, t: Tree) -> Node:
        target, index = self.compile(t.children[0]), self.compile(t.children[3])
        return Node(make_index(_attribute_fn(target), index.fn, optional=True), optional_of(DYN), attribute=True)

    def args(self, t: Tree | None) -> list[Tree]:
        if t is None:
            return []
        return [c for c in t.children if isinstance(c, Tree)]

    def c_member_dot_arg(self, t: Tree) -> Node:
        target_tree, _, name_token = t.children[:3]
        lparen = t.children[3]
        arg_trees = self.args(t.children[4] if len(t.children) > 4 else None)
        name = str(name_token)
        from evaluator.cel import macros

        macro = macros.member_macro(name, len(arg_trees))
        if macro is not None and not macro_available(name, len(arg_trees), self.env.version_minor):
            macro = None  # a later release's macro: an ordinary (undeclared) call, as cel-go's parser leaves it
        if macro is not None:
            return macro(self, target_tree, arg_trees, lparen)
        qualified = self.qualified_name(target_tree)
        if qualified is not None:
            root = qualified.split(".", 1)[0]
            if self.lookup_local(root) is None and root not in self.env.variables:
                fname = f"{qualified}.{name}".lstrip(".")
                if fname in self.env.registry:
                    ns_macro = macros.global_macro(fname, len(arg_trees))
                    if ns_macro is not None:
                        return ns_macro(self, arg_trees, lparen)
                    return self.call(fname, [self.compile(a) for a in arg_trees], False, lparen)
                # Not a function: the target is compiled as an expression, so an undeclared root is reported
                # as cel-go does ("undeclared reference to 'authorizer'", at the identifier).
        exempt = name in _HOMOGENEITY_EXEMPT
        self.exempt_depth += exempt
        try:
            target = self.compile(target_tree)
            args = [self.compile(a) for a in arg_trees]
        finally:
            self.exempt_depth -= exempt
        positions = [first_token(t) for t in [target_tree, *arg_trees]]
        return self.call(name, [target] + args, True, lparen, positions)

    def c_ident_arg(self, t: Tree) -> Node:
        name_token, lparen = t.children[0], t.children[1]
        arg_trees = self.args(t.children[2] if len(t.children) > 2 else None)
        from evaluator.cel import macros

        macro = macros.global_macro(str(name_token), len(arg_trees))
        if macro is not None and not macro_available(str(name_token), len(arg_trees), self.env.version_minor):
            macro = None
        if macro is not None:
            return macro(self, arg_trees, lparen)
        positions = [first_token(t) for t in arg_trees]
        return self.call(str(name_token), [self.compile(a) for a in arg_trees], False, lparen, positions)

    def c_dot_ident_arg(self, t: Tree) -> Node:
        name_token, lparen = t.children[1], t.children[2]
        arg_trees = self.args(t.children[3] if len(t.children) > 3 else None)
        return self.call(str(name_token), [self.compile(a) for a in arg_trees], False, lparen)

    # --- calls ---------------------------------------------------------------------------------
    def candidates(self, name: str, args: list[Node], member: bool) -> list[tuple[Overload, dict]]:
        found = []
        for o in self.env.registry.overloads(name):
            if o.member != member or len(o.params) != len(args):
                continue
            bindings: dict[str, Type] = {}
            if all(assignable(p, a.type, bindings) for p, a in zip(o.params, args)):
                found.append((o, bindings))
        return found

    def check_call(self, name: str, args: list[Node], member: bool, at: Any) -> Type:
        if not self.env.check:
            return DYN
        found = self.candidates(name, args, member)
        if not found:
            if member:
                shown = f"{args[0].type}.({', '.join(str(a.type) for a in args[1:])})"
            else:
                shown = f"({', '.join(str(a.type) for a in args)})"
            display = {"@in": "@in"}.get(name, name)
            raise self.fail(f"found no matching overload for '{display}' applied to '{_checked(shown)}'", at)
        results = {substitute(o.result, b) for o, b in found}
        return results.pop() if len(results) == 1 else DYN

    def call(self, name: str, args: list[Node], member: bool, at: Any, positions: list[Any] | None = None) -> Node:
        registry = self.env.registry
        overloads = [o for o in registry.overloads(name) if o.member == member and len(o.params) == len(args)]
        if not overloads:
            if self.env.check and name in registry:
                self.check_call(name, args, member, at)
            if self.env.check:
                raise self.fail(f"undeclared reference to '{name}' (in container '{self.env.container}')", at)
            fns = [a.fn for a in args]
            message = f"no such overload: {name}"

            def unbound(ctx: Ctx) -> Any:
                for f in fns:
                    f(ctx)
                raise CELEvalError(message)

            return Node(unbound, DYN)
        result_type = self.check_call(name, args, member, at)
        if self.env.check:
            overloads = [o for o, _ in self.candidates(name, args, member)] or overloads
        self.validate_constants(name, args, member, at, positions)
        special = {getattr(o.impl, "cel_short_circuit", None) for o in overloads}
        if len(special) == 1 and None not in special and len(args) == 2:  # optional or/orValue
            node = Node(special.pop()(args[0].fn, args[1].fn), result_type)
            return self.fold(node, args)
        node = Node(make_call(name, overloads, [a.fn for a in args]), result_type)
        return self.fold(node, args, free=name in _CONVERSIONS and not member)

    def validate_constants(
        self, name: str, args: list[Node], member: bool, at: Any, positions: list[Any] | None = None
    ) -> None:
        validators = constant_validators(name, member)
        if not validators or not self.env.validate_literals:
            return
        consts = tuple(a.const for a in args)
        for validate in validators:
            problem = validate(consts)
            if not problem:
                continue
            where = at
            if isinstance(problem, tuple):
                problem, index = problem
                if positions and 0 <= index < len(positions) and positions[index] is not None:
                    where = positions[index]
            raise self.fail(problem, where)

    # --- literals and aggregates -----------------------------------------------------------------
    def c_literal(self, t: Tree) -> Node:
        token: Token = t.children[0]
        kind, text = token.type, str(token)
        try:
            if kind == "INT_LIT":
                return const_node(parse_int(text), INT)
            if kind == "UINT_LIT":
                return const_node(parse_uint(text), UINT)
            if kind == "FLOAT_LIT":
                return const_node(float(text), DOUBLE)
            if kind in ("STRING_LIT", "MLSTRING_LIT"):
                return const_node(parse_string(text), STRING)
            if kind == "BYTES_LIT":
                return const_node(parse_string(text), BYTES)
            if kind == "BOOL_LIT":
                return const_node(text == "true", BOOL)
            if kind == "NULL_LIT":
                return const_node(None, NULL)
        except LiteralError as e:
            raise self.fail(str(e), token) from None
        raise self.fail(f"unknown literal {text}", token)

    def c_paren_expr(self, t: Tree) -> Node:
        return self.compile([c for c in t.children if isinstance(c, Tree)][0])

    def c_list_lit(self, t: Tree) -> Node:
        return aggregates.compile_list(self, t)

    def c_map_lit(self, t: Tree) -> Node:
        return aggregates.compile_map(self, t)

    def homogeneous(self, items: list[tuple[Node, Type, Tree]]) -> Type:
        return aggregates.homogeneous(self, items)

    def c_member_object(self, t: Tree) -> Node:
        from evaluator.cel.construction import compile_object

        return compile_object(self, t)


# Type conversions of a constant are precomputed for free by cel-go's OptOptimize.
_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp", "dyn", "type"})
# ext.Strings exempts the argument list of format() from the homogeneous-literal rule.
_HOMOGENEITY_EXEMPT = frozenset({"format"})


def _as_attribute(node: Node) -> Node:
    node.attribute = True
    return node


def _attribute_fn(target: Node) -> Fn:
    """The operand of a selection or index: as it is when cel-go has an attribute for it, else wrapped in
    the relative attribute cel-go makes (charged 1 even when the operand fails)."""
    return target.fn if target.attribute else relative_attribute(target.fn)
