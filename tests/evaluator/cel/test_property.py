"""Property: our evaluator and cel-python's InterpretedRunner agree on core CEL.

Hypothesis builds well-typed expressions over ints, strings, bools, lists and maps (arithmetic,
comparisons, logic, ternary, size, contains/startsWith/endsWith, `in`, has(), indexing and the
all/exists/exists_one/map/filter macros) and random data for their variables. Where both engines
return a value, the values must be equal; where cel-python returns a value, ours must too.
Where cel-python fails and we do not, nothing is asserted (cel-python is the reference only where
it is defined).

Left out on purpose, because cel-python deviates from cel-go / Kubernetes there:
* uint and int/uint/double mixing: cel-python mixes them in arithmetic, Kubernetes does not;
* heterogeneous equality (`1 == 'a'`, `1 == 1.0`): false / true in Kubernetes, an error in cel-python;
* doubles (NaN, -0.0, formatting), timestamps, durations, bytes: conversions and printing differ;
* mixed-type list and map literals: a compile error in Kubernetes (homogeneous aggregate literals);
* error values inside `&&`/`||`/`?:`: both absorb them, but cel-python's error messages differ, and we
  only compare values;
* errors inside list and map literals: cel-python returns the literal with the error inside it, cel-go
  (and we) fail the whole expression; such results count as "not defined" in cel-python.
"""

from __future__ import annotations

import logging

import celpy
import pytest
from celpy.adapter import json_to_cel
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from evaluator.cel import CELError, evaluate

logging.getLogger("celpy").setLevel(logging.CRITICAL)

INT_VARS = ("i", "j")
STR_VARS = ("s", "t")
# Small ints keep arithmetic inside int64 at the depths generated here, so overflow is not compared.
small_ints = st.integers(min_value=-50, max_value=50)
short_text = st.text(alphabet="abcAB-é😀 ", max_size=6)


def _str_lit(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def int_exprs() -> st.SearchStrategy[str]:
    leaves = st.one_of(
        small_ints.map(str),
        st.sampled_from(INT_VARS),
        st.just("size(s)"),
        st.just("size(l)"),
        st.just("m.a"),
        st.just("l[0]"),
    )

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"
            ),
            inner.map(lambda e: f"-({e})"),
            st.tuples(bool_leaf, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
            list_exprs_of(inner).map(lambda e: f"size({e})"),
        )

    return st.recursive(leaves, extend, max_leaves=6)


def list_exprs_of(elements: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(elements, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")


bool_leaf = st.one_of(st.sampled_from(["true", "false", "b", "c"]))
str_leaf = st.one_of(short_text.map(_str_lit), st.sampled_from(STR_VARS))


def str_exprs() -> st.SearchStrategy[str]:
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map(lambda t: f"({t[0]} + {t[1]})"),
            st.tuples(bool_leaf, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        )

    return st.recursive(str_leaf, extend, max_leaves=4)


INTS, STRS = int_exprs(), str_exprs()
INT_LISTS = st.one_of(
    st.just("l"),
    list_exprs_of(INTS),
    st.just("l.map(x, x * 2)"),
    INTS.map(lambda e: f"l.filter(x, x > {e})"),
    INTS.map(lambda e: f"l.map(x, x + {e})"),
    st.tuples(st.just("l"), list_exprs_of(INTS)).map(lambda t: f"({t[0]} + {t[1]})"),
)


def bool_exprs() -> st.SearchStrategy[str]:
    comparisons = st.one_of(
        st.tuples(INTS, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), INTS).map(" ".join),
        st.tuples(STRS, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), STRS).map(" ".join),
        st.tuples(STRS, st.sampled_from(["contains", "startsWith", "endsWith"]), STRS).map(
            lambda t: f"{t[0]}.{t[1]}({t[2]})"
        ),
        st.tuples(INTS, INT_LISTS).map(lambda t: f"{t[0]} in {t[1]}"),
        STRS.map(lambda e: f"{e} in m"),
        st.sampled_from(["has(m.a)", "has(m.z)", "has(n.inner.flag)", "n.inner.flag"]),
        st.tuples(INT_LISTS, st.sampled_from(["==", "!="]), INT_LISTS).map(" ".join),
        INTS.map(lambda e: f"l.all(x, x < {e})"),
        INTS.map(lambda e: f"l.exists(x, x == {e})"),
        INTS.map(lambda e: f"l.exists_one(x, x > {e})"),
        STRS.map(lambda e: f"m.exists(k, k == {e})"),
        INTS.map(lambda e: f"m.all(k, m[k] > {e})"),
        INTS.map(lambda e: f"size(l.filter(x, x % 2 == 0)) == {e}"),
    )

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["&&", "||"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"!({e})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        )

    return st.recursive(st.one_of(bool_leaf, comparisons), extend, max_leaves=5)


EXPRESSIONS = st.one_of(
    bool_exprs(), INTS, STRS, INT_LISTS, st.tuples(STRS, INTS).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}")
)

ACTIVATIONS = st.fixed_dictionaries(
    {
        "i": small_ints,
        "j": small_ints,
        "s": short_text,
        "t": short_text,
        "b": st.booleans(),
        "c": st.booleans(),
        "l": st.lists(small_ints, min_size=1, max_size=5),
        "m": st.dictionaries(st.sampled_from(["a", "b", "z", "é"]), small_ints, max_size=3).map(
            lambda d: {"a": 1, **d}
        ),
        "n": st.sampled_from([{"inner": {"flag": True}}, {"inner": {"flag": False}}, {"inner": {}}]),
    }
)

_CELPY_ENV = celpy.Environment()


def celpy_value(expression: str, activation: dict):
    """cel-python's result as plain data, or None when cel-python fails (not defined there)."""
    try:
        runner = celpy.InterpretedRunner(_CELPY_ENV, _CELPY_ENV.compile(expression), None)
        value = runner.evaluate({k: json_to_cel(v) for k, v in activation.items()})
    except Exception:  # noqa: BLE001 - cel-python raises many kinds; any of them means "not defined"
        return False, None
    if _holds_error(value):  # cel-python leaves error values inside lists and maps instead of raising
        return False, None
    return True, _plain(value)


def _holds_error(value) -> bool:
    if isinstance(value, Exception):
        return True
    if isinstance(value, dict):
        return any(_holds_error(k) or _holds_error(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_error(v) for v in value)
    return False


def _plain(value):
    if type(value).__name__ == "BoolType":
        return bool(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _same(a, b) -> bool:
    """Equal with exact types (True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, ACTIVATIONS)
def test_agrees_with_cel_python(expression, activation):
    defined, expected = celpy_value(expression, activation)
    assume(defined)
    try:
        got = evaluate(expression, activation)
    except CELError as error:
        pytest.fail(f"{expression!r} with {activation!r}: cel-python gives {expected!r}, we fail: {error.message}")
    if isinstance(expected, dict) and isinstance(got, dict):
        expected = {str(k): v for k, v in expected.items()}  # JSON form: map keys become text
    assert _same(got, expected), f"{expression!r} with {activation!r}: ours {got!r}, cel-python {expected!r}"


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("-7 / 2", -3),
        ("-7 % 2", -1),
        ("7 % -2", 1),
        ("'é😀'.size()", 2),
        ("'b' > 'a😀'", True),
        ("[1, 2, 3].exists_one(x, x > 1)", False),
        ("{'a': 1}.all(k, has({'a': 1}.a))", True),
    ],
)
def test_fixed_points_agree(expression, expected):
    defined, reference = celpy_value(expression, {})
    assert defined and reference == expected
    assert evaluate(expression, {}) == expected
