"""Static cost estimation of a CEL expression, as cel-go's `checker.Cost` with Kubernetes' `library.CostEstimator`.

The API server refuses a CRD rule (or a policy) whose worst-case cost is too high before anything runs.
cel-go estimates on the checked AST: each node costs a [min, max] range; comprehensions multiply the
per-iteration cost by the size of the range, which comes from the schema (`maxItems`, `maxLength`,
`maxProperties`, or the most a 3 MiB request could hold). We walk our parse tree the same way, with the
macros expanded as cel-go expands them, and take each node's static type from our compiler.
`SizeEstimator.size(path)` answers the size of `self.a.@items...` paths.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from lark import Token, Tree

from evaluator.cel.aggregates import flatten
from evaluator.cel.compiler import Compiler
from evaluator.cel.env import Env
from evaluator.cel.grammar import parser, unwrap
from evaluator.cel.literals import LiteralError, parse_string
from evaluator.cel.nodes import CompileIssue
from evaluator.cel.schematypes import struct_target
from evaluator.cel.types import DYN, Type

U64 = 2**64 - 1
UNKNOWN = (0, U64)
TRAVERSAL = 0.1
REGEX_FACTOR = 0.25

# What creating each macro's accumulator costs (cel-go: a list literal 10, a map literal 30).
_ACCU_INIT_COST = {"true": (0, 0), "false": (0, 0), "0": (0, 0), "[]": (10, 10), "{}": (30, 30)}


def add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return min(a[0] + b[0], U64), min(a[1] + b[1], U64)


def mul(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return min(a[0] * b[0], U64), min(a[1] * b[1], U64)


def factor(a: tuple[int, int], f: float) -> tuple[int, int]:
    def one(x: int) -> int:
        if x > 0 and f > 0 and x > U64 / f:
            return U64
        c = math.ceil(float(x) * f)
        return U64 if c >= 2.0**64 else int(c)

    return one(a[0]), one(a[1])


def union(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return min(a[0], b[0]), max(a[1], b[1])


class _Recorder(Compiler):
    """Our compiler, remembering each sub-tree's static type."""

    def __init__(self, env: Env, source: str):
        super().__init__(env, source)
        self.types: dict[int, Type] = {}

    def compile(self, tree: Tree):
        node = super().compile(tree)
        self.types[id(tree)] = node.type
        return node


class Local:
    __slots__ = ("entry", "path", "size", "type")

    def __init__(self, path, size, entry, type_):
        self.path, self.size, self.entry, self.type = path, size, entry, type_


class Estimator:
    def __init__(self, source: str, env: Env, size_of: Callable[[list[str]], tuple[int, int] | None]):
        self.tree = parser().parse(source)
        recorder = _Recorder(env, source)
        try:
            recorder.compile(self.tree)
        except (CompileIssue, RecursionError):
            pass
        self.types = recorder.types
        self.env = env
        self.size_of = size_of
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, tuple[int, int]] = {}
        self.entries: dict[int, tuple[str, tuple[int, int], tuple[int, int]]] = {}
        self.locals: dict[str, list[Local]] = {}

    # -- helpers ----------------------------------------------------------------------------------------
    def strip(self, t: Any) -> Any:
        if isinstance(t, Tree):
            t = unwrap(t)
        if isinstance(t, Tree) and t.data == "paren_expr":
            inner = [c for c in t.children if isinstance(c, Tree)]
            if inner:
                return self.strip(inner[0])
        return t

    def type_of(self, t: Tree) -> Type:
        found = self.types.get(id(t))
        if found is not None:
            return found
        t2 = self.strip(t)
        found = self.types.get(id(t2))
        if found is not None:
            return found
        if t2.data == "ident":
            name = str(t2.children[0])
            if self.locals.get(name):
                return self.locals[name][-1].type
            return self.env.variables.get(name, DYN)
        if t2.data in ("member_dot", "member_dot_opt"):
            operand = self.type_of(t2.children[0])
            field = str(t2.children[-1])
            target = struct_target(operand)
            if target is not None:
                ft = target[0].field_type(field) or DYN
                return Type("optional_type", (ft,)) if target[1] or t2.data == "member_dot_opt" else ft
            if operand.name == "map" and len(operand.params) == 2:
                return operand.params[1]
        return DYN

    def path(self, t: Tree) -> list[str]:
        t = self.strip(t)
        if t.data == "ident":
            name = str(t.children[0])
            stack = self.locals.get(name)
            if stack:
                return list(stack[-1].path)
        return list(self.paths.get(id(t), []))

    def size(self, t: Tree) -> tuple[int, int] | None:
        t = self.strip(t)
        if id(t) in self.sizes:
            return self.sizes[id(t)]
        literal = self.literal_size(t)
        if literal is not None:
            return literal
        p = self.path(t)
        if p and p[0] not in ("@result", "__result__"):
            est = self.size_of(p)
            if est is not None:
                self.sizes[id(t)] = est
                return est
        tt = self.type_of(t)
        if _scalar(tt):
            return (1, 1)
        if t.data == "ident":
            stack = self.locals.get(str(t.children[0]))
            if stack and stack[-1].size is not None:
                return stack[-1].size
        return None

    def size_or_unknown(self, t: Tree) -> tuple[int, int]:
        s = self.size(t)
        return s if s is not None else UNKNOWN

    def entry(self, t: Tree):
        t = self.strip(t)
        if id(t) in self.entries:
            return self.entries[id(t)]
        if t.data == "ident":
            stack = self.locals.get(str(t.children[0]))
            if stack and stack[-1].entry is not None:
                return stack[-1].entry
        return None

    def literal_size(self, t: Tree) -> tuple[int, int] | None:
        if t.data == "literal":
            tok = t.children[0]
            if tok.type in ("STRING_LIT", "MLSTRING_LIT"):
                try:
                    return (len(parse_string(str(tok))),) * 2
                except LiteralError:
                    return None
            if tok.type == "BYTES_LIT":
                try:
                    value = parse_string(str(tok))
                    return (len(value),) * 2
                except LiteralError:
                    return None
            return (1, 1)
        if t.data == "list_lit":
            n = len(self.list_items(t))
            return (n, n)
        if t.data == "map_lit":
            n = len(self.map_entries(t))
            return (n, n)
        return None

    def list_items(self, t: Tree) -> list[Tree]:
        """A list literal's element expressions (an optional element `?e` as its listelem_opt)."""
        return [_subtrees(item)[-1] for item in flatten(_first_subtree(t), "listelems") if _subtrees(item)]

    def map_entries(self, t: Tree) -> list[tuple[Tree, Tree]]:
        """A map literal's (key, value) expressions; optional entries `?k: v` are left out."""
        pairs = (_subtrees(item) for item in flatten(_first_subtree(t), "mapinits") if item.data == "mapinit")
        return [(kv[0], kv[1]) for kv in pairs if len(kv) == 2]

    # -- cost -------------------------------------------------------------------------------------------
    def estimate(self) -> tuple[int, int]:
        return self.cost(self.tree)

    def cost(self, t: Any) -> tuple[int, int]:
        t = self.strip(t)
        if not isinstance(t, Tree):
            return (0, 0)
        method = getattr(self, "c_" + t.data, None)
        if method is None:
            return self.default_call(t, [c for c in t.children if isinstance(c, Tree)])
        return method(t)

    def c_literal(self, t: Tree) -> tuple[int, int]:
        return (0, 0)

    def c_ident(self, t: Tree) -> tuple[int, int]:
        name = str(t.children[0])
        stack = self.locals.get(name)
        self.paths[id(t)] = list(stack[-1].path) if stack else [name]
        return (1, 1)

    def c_dot_ident(self, t: Tree) -> tuple[int, int]:
        self.paths[id(t)] = [str(t.children[1])]
        return (1, 1)

    def c_member_dot(self, t: Tree) -> tuple[int, int]:
        operand = t.children[0]
        qualified = _qualified(t)
        if qualified is not None:
            root = qualified.split(".")[0]
            if root not in self.env.variables and not self.locals.get(root):
                self.paths[id(t)] = [qualified]  # a qualified name (a type) is one identifier to cel-go
                return (1, 1)
        c = self.cost(operand)
        ot = self.type_of(operand)
        if (
            ot.name == "map"
            or struct_target(ot) is not None
            and ot.name != "optional_type"
            or ot.is_param
            or ot.name == "dyn"
        ):
            c = add(c, (1, 1))
        field = str(t.children[-1])
        if field.startswith("`"):
            field = field[1:-1]
        self.paths[id(t)] = self.path(operand) + [field]
        return c

    def c_member_dot_opt(self, t: Tree) -> tuple[int, int]:
        # `a.?b` is the call _?._(a, "b"): one call plus its arguments; its result has no path.
        return add(self.cost(t.children[0]), (1, 1))

    def c_member_index_opt(self, t: Tree) -> tuple[int, int]:
        target, key = [c for c in t.children if isinstance(c, Tree)][:2]
        return add(add(self.cost(target), self.cost(key)), (1, 1))

    def c_member_index(self, t: Tree) -> tuple[int, int]:
        target, key = [c for c in t.children if isinstance(c, Tree)][:2]
        c = add(add(self.cost(target), self.cost(key)), (1, 1))
        tt = self.type_of(target)
        entry = self.entry(target)
        if tt.name == "list":
            if entry is not None:
                self.sizes[id(t)] = entry[2]
            self.paths[id(t)] = self.path(target) + ["@items"]
        elif tt.name == "map":
            if entry is not None:
                self.sizes[id(t)] = entry[2]
            self.paths[id(t)] = self.path(target) + ["@values"]
        return c

    def c_list_lit(self, t: Tree) -> tuple[int, int]:
        items = self.list_items(t)
        total = (0, 0)
        item_size = (U64, 0) if items else (0, 0)
        for item in items:
            total = add(total, self.cost(item))
            item_size = union(item_size, self.size_or_unknown(item))
        self.entries[id(t)] = ("list", (1, 1), item_size)
        return add(total, (10, 10))

    def c_map_lit(self, t: Tree) -> tuple[int, int]:
        entries = self.map_entries(t)
        total = (0, 0)
        ks, vs = ((U64, 0), (U64, 0)) if entries else ((0, 0), (0, 0))
        for k, v in entries:
            total = add(add(total, self.cost(k)), self.cost(v))
            ks = union(ks, self.size_or_unknown(k))
            vs = union(vs, self.size_or_unknown(v))
        self.entries[id(t)] = ("map", ks, vs)
        return add(total, (30, 30))

    def c_member_object(self, t: Tree) -> tuple[int, int]:
        total = (40, 40)
        for c in t.children[1:]:
            if isinstance(c, Tree):
                for sub in c.iter_subtrees_topdown():
                    pass
        return total

    def c_expr(self, t: Tree) -> tuple[int, int]:
        cond, a, b = [c for c in t.children if isinstance(c, Tree)]
        cc, ca, cb = self.cost(cond), self.cost(a), self.cost(b)
        self.sizes[id(t)] = union(self.size_or_unknown(a), self.size_or_unknown(b))
        ea, eb = self.entry(a), self.entry(b)
        if ea is not None and eb is not None:
            self.entries[id(t)] = (ea[0], union(ea[1], eb[1]), union(ea[2], eb[2]))
        return add(cc, union(ca, cb))

    def _logic(self, t: Tree) -> tuple[int, int]:
        terms = [c for c in t.children if isinstance(c, Tree)]
        costs = [self.cost(x) for x in terms]
        # left-associated or balanced, the minimum is the first term's and the maximum the sum
        total_max = sum(c[1] for c in costs)
        return costs[0][0], min(total_max, U64)

    c_conditionalor = _logic
    c_conditionaland = _logic

    def c_relation(self, t: Tree) -> tuple[int, int]:
        inner = [c for c in t.children if isinstance(c, Tree)]
        if len(inner) == 1:
            return self.cost(inner[0])
        op_tree, rhs = inner[0], inner[1]
        lhs = next(c for c in op_tree.children if isinstance(c, Tree))
        return self._binary(t, op_tree.data, lhs, rhs)

    c_addition = c_relation
    c_multiplication = c_relation

    def _binary(self, t: Tree, op: str, lhs: Tree, rhs: Tree) -> tuple[int, int]:
        cl, cr = self.cost(lhs), self.cost(rhs)
        args = add(cl, cr)
        lt, rt = self.type_of(lhs), self.type_of(rhs)
        if op in ("relation_eq", "relation_ne") or (
            op in ("relation_lt", "relation_le", "relation_gt", "relation_ge") and lt.name in ("string", "bytes")
        ):
            if op in ("relation_eq", "relation_ne"):
                special = _k8s_equality(lt, rt)
                if special is not None:
                    return add(special, args)
            sl, sr = self.size_or_unknown(lhs), self.size_or_unknown(rhs)
            smallest = min(sl[1], sr[1])
            return add(factor((1 if smallest > 0 else 0, smallest), TRAVERSAL), args)
        if op == "relation_in":
            if rt.name == "list":
                return add(factor(self.size_or_unknown(rhs), 1), args)
            return add((1, 1), args)
        if op == "addition_add" and lt.name in ("string", "bytes", "list"):
            sl, sr = self.size_or_unknown(lhs), self.size_or_unknown(rhs)
            result = add(sl, sr)
            self.sizes[id(t)] = result
            el, er = self.entry(lhs), self.entry(rhs)
            if el is not None and er is not None:
                self.entries[id(t)] = (el[0], union(el[1], er[1]), union(el[2], er[2]))
            if lt.name == "list":
                return add((1, 1), args)
            return add(factor(result, TRAVERSAL), args)
        return add((1, 1), args)

    def default_call(self, t: Tree, args: list[Tree]) -> tuple[int, int]:
        total = (1, 1)
        for a in args:
            total = add(total, self.cost(a))
        return total

    def c_unary(self, t: Tree) -> tuple[int, int]:
        inner = [c for c in t.children if isinstance(c, Tree)]
        ops = [c for c in t.children if isinstance(c, Tree) and c.data in ("unary_not", "unary_neg")]
        operand = [c for c in inner if c.data not in ("unary_not", "unary_neg")]
        cost = self.cost(operand[-1]) if operand else (0, 0)
        count = sum(len([x for x in o.children if isinstance(x, Token)]) or 1 for o in ops)
        if (
            operand
            and self.strip(operand[-1]).data == "literal"
            and all(o.data == "unary_neg" for o in ops)
            and count == 1
        ):
            return cost  # a negative literal
        return add(cost, (count, count))

    # -- calls ------------------------------------------------------------------------------------------
    def _args(self, t: Any) -> list[Tree]:
        if t is None or not isinstance(t, Tree):
            return []
        if t.data == "exprlist":
            return [c for c in t.children if isinstance(c, Tree)]
        return [t]

    def c_ident_arg(self, t: Tree) -> tuple[int, int]:
        name = str(t.children[0])
        args = self._args(t.children[2] if len(t.children) > 2 else None)
        if name == "has" and len(args) == 1:
            inner = self.strip(args[0])
            if inner.data == "member_dot":
                return self.cost(inner.children[0])  # presence tests are free in Kubernetes
            return self.cost(inner)
        if name == "dyn" and len(args) == 1:
            c = self.cost(args[0])
            if id(self.strip(args[0])) in self.sizes:
                self.sizes[id(t)] = self.sizes[id(self.strip(args[0]))]
            e = self.entry(args[0])
            if e is not None:
                self.entries[id(t)] = e
            return add((1, 1), c)
        return self.call(t, name, None, args)

    def c_member_dot_arg(self, t: Tree) -> tuple[int, int]:
        target = t.children[0]
        name = next(str(c) for c in t.children[1:] if isinstance(c, Token) and str(c) not in ".()")
        exprlist = next((c for c in t.children[1:] if isinstance(c, Tree)), None)
        args = self._args(exprlist)
        macro = _MACROS.get((name, len(args)))
        if macro is not None:
            return macro(self, t, target, args)
        qualified = _qualified(target)
        if (
            qualified is not None
            and qualified.split(".")[0] not in self.env.variables
            and qualified.split(".")[0] not in self.locals
        ):
            return self.call(t, f"{qualified}.{name}", None, args)
        return self.call(t, name, target, args)

    def call(self, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> tuple[int, int]:
        arg_cost = (0, 0)
        for a in args:
            arg_cost = add(arg_cost, self.cost(a))
        total = (0, 0)
        if target is not None:
            total = self.cost(target)
        est = self.library_call(t, name, target, args)
        if est is None:
            est = (1, 1)
        return add(total, add(est, arg_cost))

    def library_call(self, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> tuple[int, int] | None:
        from evaluator.cel.cost_library import estimate_call

        return estimate_call(self, t, name, target, args)

    # -- comprehensions ---------------------------------------------------------------------------------
    def push(self, name: str, path: list[str], size, entry, type_: Type) -> None:
        self.locals.setdefault(name, []).append(Local(path, size, entry, type_))

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    def push_iteration_vars(self, target: Tree, vars_: list[str]) -> None:
        """Bind a comprehension's variables to the range's element (or key and value) paths, sizes and types."""
        rt = self.type_of(target)
        entry = self.entry(target)
        container = entry[0] if entry is not None else ("list" if rt.name == "list" else "map")
        base = self.path(target)
        elem_t = rt.params[0] if rt.name in ("list", "map") and rt.params else DYN
        is_list = container == "list"
        # (variable, its path step, which size of the range's entry it has, its type)
        if len(vars_) == 2:
            val_t = rt.params[-1] if rt.params else DYN
            bindings = [
                (vars_[0], "@indices" if is_list else "@keys", 1, Type("int") if rt.name == "list" else elem_t),
                (vars_[1], "@items" if is_list else "@values", 2, val_t),
            ]
        else:
            bindings = [(vars_[0], "@items" if is_list else "@keys", 2 if is_list else 1, elem_t)]
        for var, step, part, var_type in bindings:
            self.push(var, base + [step], entry[part] if entry else None, None, var_type)

    def comprehension(
        self,
        t: Tree,
        target: Tree,
        vars_: list[str],
        accu_init: str,
        loop_cond: tuple[int, int],
        step: Callable[[], tuple[int, int]],
        result: tuple[int, int],
    ) -> tuple[int, int]:
        total = add(self.cost(target), _ACCU_INIT_COST[accu_init])
        self.push_iteration_vars(target, vars_)
        step_cost = step()
        for v in vars_:
            self.pop(v)
        total = add(total, result)
        count = self.size_or_unknown(target)
        total = add(total, mul(count, add(step_cost, loop_cond)))
        if accu_init in ("[]", "{}"):
            self.sizes[id(t)] = count
        else:
            self.sizes[id(t)] = (1, 1)
        return total


def _subtrees(t: Tree) -> list[Tree]:
    return [c for c in t.children if isinstance(c, Tree)]


def _first_subtree(t: Tree) -> Tree | None:
    return next((c for c in t.children if isinstance(c, Tree)), None)


def _qualified(t: Any) -> str | None:
    if isinstance(t, Tree):
        t = unwrap(t)
    if isinstance(t, Tree) and t.data == "ident":
        return str(t.children[0])
    if isinstance(t, Tree) and t.data == "member_dot":
        base = _qualified(t.children[0])
        return f"{base}.{t.children[-1]}" if base else None
    return None


def _scalar(t: Type) -> bool:
    if t.name in ("bool", "double", "google.protobuf.Duration", "int", "google.protobuf.Timestamp", "uint"):
        return True
    if t.name == "optional_type" and t.params:
        return _scalar(t.params[0])
    return False


def _k8s_equality(lt: Type, rt: Type) -> tuple[int, int] | None:
    if lt != rt:
        return None
    if lt.name in (
        "net.IP",
        "net.IPAddress",
        "net.CIDR",
        "kubernetes.Quantity",
        "kubernetes.Semver",
        "kubernetes.authorization.Authorizer",
        "kubernetes.authorization.PathCheck",
        "kubernetes.authorization.GroupCheck",
        "kubernetes.authorization.ResourceCheck",
        "kubernetes.authorization.Decision",
        "Semver",
    ):
        return (1, 1)
    if lt.name == "kubernetes.NamedFormat":
        return factor((1, 64), TRAVERSAL)
    return None


def _var(e: Estimator, t: Tree) -> str:
    t = e.strip(t)
    return str(t.children[0]) if isinstance(t, Tree) and t.data == "ident" else "_"


def _quantifier(accu_init: str, loop_cond: tuple[int, int], result: tuple[int, int], step: Callable) -> Callable:
    """all/exists/exists_one: cel-go's expansion, whose step costs `step(cost of the predicate)`."""

    def estimate_quantifier(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
        vars_ = [_var(e, a) for a in args[:-1]]
        pred = args[-1]
        return e.comprehension(t, target, vars_, accu_init, loop_cond, lambda: step(e.cost(pred)), result)

    return estimate_quantifier


_all = _quantifier("true", (2, 2), (1, 1), lambda p: (1, 1 + p[1]))  # accu && pred
_exists = _quantifier("false", (3, 3), (1, 1), lambda p: (1, 1 + p[1]))  # accu || pred
_exists_one = _quantifier("0", (0, 0), (2, 2), lambda p: add(p, union((2, 2), (1, 1))))


def _list_building(e: Estimator, t: Tree, target: Tree, var: list[str], step: Callable) -> tuple[int, int]:
    """map/filter: `step` returns the cost of one iteration and the entry (sizes) of the list it builds."""
    entries = []

    def cost_of_step() -> tuple[int, int]:
        cost, entry = step()
        entries.append(entry)
        return cost

    total = e.comprehension(t, target, var, "[]", (0, 0), cost_of_step, (1, 1))
    if entries:
        e.entries[id(t)] = entries[-1]
    return total


def _map(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
    def step():
        body = e.cost(args[-1])
        entry = ("list", (1, 1), e.size_or_unknown(args[-1]))
        appended = add((1 + 1 + 10, 1 + 1 + 10), body)  # accu + [body]
        if len(args) == 3:
            return add(e.cost(args[1]), union(appended, (1, 1))), entry
        return appended, entry

    return _list_building(e, t, target, [_var(e, args[0])], step)


def _filter(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
    def step():
        p = e.cost(args[-1])
        entry = ("list", (1, 1), e.size_or_unknown(args[0]))
        return add(p, union((13, 13), (1, 1))), entry

    return _list_building(e, t, target, [_var(e, args[0])], step)


def _transform(accu_init: str, insert: tuple[int, int]) -> Callable:
    """transformList/transformMap: each iteration inserts the body's value (at cost `insert`), under a filter
    when there is one."""

    def estimate_transform(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
        vars_ = [_var(e, a) for a in args[:2]]

        def step():
            inserted = add(insert, e.cost(args[-1]))
            if len(args) == 4:
                return add(e.cost(args[2]), union(inserted, (1, 1)))
            return inserted

        return e.comprehension(t, target, vars_, accu_init, (0, 0), step, (1, 1))

    return estimate_transform


_transform_list = _transform("[]", (12, 12))  # accu + [body]
_transform_map = _transform("{}", (1 + 1 + 1, 1 + 1 + 1))  # cel.@mapInsert(accu, k, body)


def _opt_map(flat: bool) -> Callable:
    """cel-go expands `o.optMap(v, e)` to `o.hasValue() ? optional.of(cel.bind(v, o.value(), e)) : optional.none()`."""

    def estimate_opt(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
        target_cost = e.cost(target)
        has_value = add(target_cost, (1, 1))
        value = add(target_cost, (1, 1))
        e.push(_var(e, args[0]), [], None, None, DYN)
        body = e.cost(args[-1])
        e.pop(_var(e, args[0]))
        bound = add(add((10, 10), value), body)
        present = bound if flat else add(bound, (1, 1))
        return add(has_value, union(present, (1, 1)))

    return estimate_opt


_MACROS = {
    ("optMap", 2): _opt_map(False),
    ("optFlatMap", 2): _opt_map(True),
    ("all", 2): _all,
    ("all", 3): _all,
    ("exists", 2): _exists,
    ("exists", 3): _exists,
    ("exists_one", 2): _exists_one,
    ("existsOne", 2): _exists_one,
    ("exists_one", 3): _exists_one,
    ("existsOne", 3): _exists_one,
    ("map", 2): _map,
    ("map", 3): _map,
    ("filter", 2): _filter,
    ("transformList", 3): _transform_list,
    ("transformList", 4): _transform_list,
    ("transformMap", 3): _transform_map,
    ("transformMap", 4): _transform_map,
}


def estimate(source: str, env: Env, size_of: Callable[[list[str]], tuple[int, int] | None]) -> tuple[int, int]:
    """The [min, max] cost estimate of an expression that compiles in `env`."""
    try:
        return Estimator(source, env, size_of).estimate()
    except RecursionError:
        return UNKNOWN
