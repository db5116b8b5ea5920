"""Property: the checker never reports an error for an expression the evaluator accepts on typed inputs.

Hypothesis walks the schema type of a few built-in kinds (Deployment, Pod, ConfigMap, Service) to build
expressions: a path of field selections, indexes, map keys and `all()` comprehensions, sometimes ending
in a misspelt field, then an operation on the leaf (ordering and arithmetic against literals of any
type, size(), startsWith(), has(), equality with itself). Inputs are objects of the declared types with
every declared field present (a lazy mapping that makes each field's value on access, so the huge
PodSpec is only built along the paths used): ints for int, Timestamps for date-time, bytes for
format byte, int or string for int-or-string. Whenever the evaluator returns a value for every input,
the checker must report no issue.

Left out on purpose, because the checker is stricter than evaluation there by CEL's design (the API
server's checker warns about them too):
* operations that treat a struct as a map (size(), `in`, equality with structs): the evaluator holds
  objects as plain mappings, so it cannot reject them;
* heterogeneous equality and membership (`object.spec.replicas == 'a'`, `'a' in [1]`, `1 == null`):
  false at runtime, "no matching overload" for the checker;
* concatenating lists of different element types (`list(string) + list(int)`): fine at runtime, the
  checker's `list(A) + list(A)` does not unify.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.cel import CELError, compile_program
from evaluator.cel.escaping import unescape_field
from evaluator.cel.schematypes import ObjectType
from evaluator.cel.types import Type
from evaluator.cel.values import Duration, Timestamp
from evaluator.k8s.restmapping import GVK
from evaluator.typechecking.environment import SERVER, Declarations, compile_variables, kind_type

KINDS = [GVK("apps", "v1", "Deployment"), GVK("", "v1", "Pod"), GVK("", "v1", "ConfigMap"), GVK("", "v1", "Service")]
LITERALS = ["1", "1.5", "'a'", "true", "timestamp('2020-01-01T00:00:00Z')", "duration('1s')", "b'ab'", "{'a': 1}"]


# -- typed inputs -----------------------------------------------------------------------------------
class LazyStruct(Mapping):
    """A value of an object type: every declared field present, made on first access from a seed."""

    def __init__(self, t: ObjectType, seed: int):
        self._t, self._seed, self._cache = t, seed, {}
        self._names = {unescape_field(n) or n: n for n in t.fields}

    def __getitem__(self, key):
        if key not in self._names:
            raise KeyError(key)
        if key not in self._cache:
            self._cache[key] = value_of(self._t.fields[self._names[key]], hash((self._seed, key)))
        return self._cache[key]

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


def value_of(t: Type, seed: int):
    rnd = random.Random(seed)
    if isinstance(t, ObjectType):
        return LazyStruct(t, seed)
    name = t.name
    if name == "list":
        return [value_of(t.params[0], seed * 31 + i) for i in range(2)]
    if name == "map":
        return {f"k{i}": value_of(t.params[1], seed * 17 + i) for i in range(2)}
    if name == "int":
        return rnd.randint(-5, 5)
    if name == "double":
        return rnd.choice([0.5, -2.0, 3.25])
    if name == "bool":
        return rnd.random() < 0.5
    if name == "string":
        return rnd.choice(["", "a", "abc", "x-y"])
    if name == "bytes":
        return b"ab"
    if name == "google.protobuf.Timestamp":
        return Timestamp(rnd.randint(0, 10**18))
    if name == "google.protobuf.Duration":
        return Duration(rnd.randint(0, 10**12))
    return rnd.choice([rnd.randint(0, 9), "25%"])  # dyn: int-or-string


# -- expressions ------------------------------------------------------------------------------------
def _has_struct(t: Type) -> bool:
    return isinstance(t, ObjectType) or any(_has_struct(p) for p in t.params)


@st.composite
def walk(draw, base: str, t: Type, depth: int = 0, scope: int = 0) -> str:
    """An expression that starts at `base` of type `t` and goes down the declared fields."""
    if depth < 7 and draw(st.integers(0, 9)) < 8:
        if isinstance(t, ObjectType) and t.fields:
            if draw(st.integers(0, 14)) == 0:
                return draw(leaf(f"{base}.{draw(st.sampled_from(['nope', 'replica', 'Spec']))}", None))
            field = draw(st.sampled_from(sorted(t.fields)))
            if draw(st.integers(0, 5)) == 0:
                return f"has({base}.{field})"
            return draw(walk(f"{base}.{field}", t.fields[field], depth + 1, scope))
        if t.name == "list" and t.params:
            if draw(st.booleans()):
                var = f"x{scope}"
                body = draw(walk(var, t.params[0], depth + 1, scope + 1))
                return f"{base}.all({var}, ({body}) == ({body}))"
            return draw(walk(f"{base}[1]", t.params[0], depth + 1, scope))
        if t.name == "map" and len(t.params) == 2:
            return draw(walk(f"{base}['k0']", t.params[1], depth + 1, scope))
    return draw(leaf(base, t))


@st.composite
def leaf(draw, base: str, t: Type | None) -> str:
    if t is not None and isinstance(t, ObjectType):
        return f"{base} != null"
    ops = ["{b} < {lit}", "{b} + {lit}", "{b}.startsWith('a')", "{b} - {lit}", "{b}"]
    if t is None or not _has_struct(t):
        ops += ["size({b})", "({b}) == ({b})", "{b} in [{b}]"]
    return draw(st.sampled_from(ops)).format(b=base, lit=draw(st.sampled_from(LITERALS)))


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(KINDS))
    root = kind_type(kind).type
    return kind, draw(walk("object", root))


def _accepted_for_all(expression: str, root: ObjectType) -> bool:
    try:
        program = compile_program(expression, declared=("object",))
    except CELError:
        return False
    for seed in (1, 2, 3):
        try:
            program.evaluate({"object": LazyStruct(root, seed)})
        except CELError:
            return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_checker_accepts_what_the_evaluator_accepts_on_typed_inputs(case):
    kind, expression = case
    kt = kind_type(kind)
    if not _accepted_for_all(expression, kt.type):
        return
    result = compile_variables(Declarations(kt, False, None, SERVER), []).check(expression)
    assert result.ok, f"{expression}: {result.text()}"


@pytest.mark.parametrize(
    "expression",
    [
        "object.spec.replicas > 1.5",
        "object.metadata.creationTimestamp < timestamp('2020-01-01T00:00:00Z')",
        "object.spec.template.spec.containers.all(c, c.ports.all(p, p.containerPort + 1 > 0))",
        "object.metadata.labels['k0'].startsWith('a') || true",
    ],
)
def test_examples_accepted_by_both(expression):
    kt = kind_type(GVK("apps", "v1", "Deployment"))
    assert _accepted_for_all(expression, kt.type)
    assert compile_variables(Declarations(kt, False, None, SERVER), []).check(expression).ok


@pytest.mark.parametrize(
    "expression",
    ["object.spec.replicas + 'a'", "object.spec.nope == 1", "object.metadata.creationTimestamp.startsWith('2')"],
)
def test_examples_rejected_by_both(expression):
    kt = kind_type(GVK("apps", "v1", "Deployment"))
    assert not _accepted_for_all(expression, kt.type)
    assert not compile_variables(Declarations(kt, False, None, SERVER), []).check(expression).ok
