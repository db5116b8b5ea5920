"""Corners where cel-go's behaviour is easy to get subtly wrong, each checked as a class of cases.

Selection on null and scalars follows cel-go's interpreter/attributes.go refQualify (no such key, presence
false, optional none); the macro messages follow parser/macro.go, ext/comprehensions.go, cel/library.go's
optMap/optFlatMap and ext/lists.go's sortBy; the range check follows checker.go's notAComprehensionRange.
"""

from __future__ import annotations

import pytest

from evaluator.cel import CompileError, EvaluationError, compile_program, evaluate
from evaluator.cel.env import Env, admission_env

DATA = {"params": None, "object": {"n": 5, "s": "text", "b": True, "l": [1], "m": {"k": None}}}


def error_of(expression: str) -> str:
    with pytest.raises(EvaluationError) as info:
        evaluate(expression, DATA)
    return info.value.message


def compile_error(expression: str) -> str:
    with pytest.raises(CompileError) as info:
        compile_program(expression, env=admission_env())
    return info.value.message


@pytest.mark.parametrize("target", ["params", "object.n", "object.s", "object.b", "object.m.k"])
def test_selection_on_null_and_scalars(target):
    assert error_of(f"{target}.foo") == "no such key: foo"
    assert error_of(f"{target}['foo']") == "no such key: foo"
    assert evaluate(f"has({target}.foo)", DATA) is False
    assert evaluate(f"{target}.?foo.hasValue()", DATA) is False
    assert evaluate(f"{target}.?foo.orValue('default')", DATA) == "default"
    assert evaluate(f"{target}[?'foo'].hasValue()", DATA) is False


def test_selection_on_a_list_wants_a_number():
    assert error_of("object.l.foo") == "unsupported index type 'string' in list"
    assert error_of("has(object.l.foo)") == "unsupported index type 'string' in list"
    assert error_of("object.l['x']") == "unsupported index type 'string' in list"


def test_a_present_optional_of_null_has_no_such_key():
    """cel-spec optionals/map_null_entry_no_such_key: a plain selection after `.?` on a null value."""
    assert error_of("object.m.?k.invalid.hasValue()") == "no such key: invalid"


def test_params_when_a_binding_gives_none():
    assert evaluate("params.?maxReplicas.orValue(3)", DATA) == 3
    assert evaluate("!has(params.maxReplicas)", DATA) is True


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("[1, 2, 3].first()", 1),
        ("[1, 2, 3].last()", 3),
        ("[].first().hasValue()", False),
        ("[].last().orValue(0)", 0),
        ("optional.unwrap([optional.of(1), optional.none(), optional.of(3)])", [1, 3]),
        ("[optional.none(), optional.of('a')].unwrapOpt()", ["a"]),
    ],
)
def test_optional_library_version_2(expression, value):
    assert evaluate(expression) == value


def test_unwrap_refuses_a_plain_value():
    assert error_of("dyn([1]).unwrapOpt()") == "value 1 is not optional"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("[1].exists(__result__, true)", "1:12: iteration variable overwrites accumulator variable"),
        ("[1].exists_one(__result__, true)", "1:16: iteration variable overwrites accumulator variable"),
        ("[1].map(__result__, 1)", "1:9: iteration variable overwrites accumulator variable"),
        ("[1].filter(__result__, true)", "1:12: iteration variable overwrites accumulator variable"),
        ("[1].all(i, __result__, true)", "1:12: iteration variable overwrites accumulator variable"),
        ("[1].transformList(__result__, v, v)", "1:19: iteration variable overwrites accumulator variable"),
        ("[1].all(i, i, true)", "1:12: duplicate variable name: i"),
        ("[1].all(x.y, true)", "argument must be a simple name"),
        ("[1].map(1, 1)", "1:9: argument is not an identifier"),
        ("[1].filter(x.y, true)", "argument is not an identifier"),
        ("optional.of(1).optMap(x.y, 1)", "optMap() variable name must be a simple identifier"),
        ("optional.of(1).optFlatMap(1, optional.none())", "optFlatMap() variable name must be a simple identifier"),
        ("[1].sortBy(1, 1)", "sortBy(var, ...) variable name must be a simple identifier"),
    ],
)
def test_macro_arguments_are_refused_with_cel_go_messages(expression, message):
    assert message in compile_error(expression)


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("1.all(x, x > 0)", "int"),
        ("'text'.map(c, c)", "string"),
        ("true.exists(x, x)", "bool"),
        ("1.transformList(i, v, v)", "int"),
        ("optional.of(1).filter(x, true)", "optional_type(int)"),
    ],
)
def test_a_range_that_is_neither_list_nor_map_is_refused(expression, shown):
    assert (
        f"expression of type '{shown}' cannot be range of a comprehension (must be list, map, or dynamic)"
        in compile_error(expression)
    )


def test_dynamic_ranges_compile():
    for expression in ("object.all(k, k != '')", "dyn([1]).map(x, x)", "{1: 2}.all(k, k > 0)"):
        compile_program(expression, env=admission_env())


# cel-go's parser counts nested relations, arithmetic, selections, calls and indexes while it builds the
# AST (parser.go checkAndIncrementRecursionDepth): more than 250 is refused.
@pytest.mark.parametrize(
    "expression, ok",
    [
        ("object.b == " * 249 + "object.b", True),
        ("object.b == " * 250 + "object.b", False),
        ("1 + " * 250 + "1", True),  # 250 additions; the literal leaf is not counted
        ("1 + " * 251 + "1", False),
        ("object" + ".m" * 251, False),
        ("(" * 200 + "1" + ")" * 200, True),  # parentheses count only toward the other (parse-tree) limit
    ],
)
def test_the_visitor_recursion_limit(expression, ok):
    if ok:
        compile_program(expression, env=admission_env())
    else:
        assert compile_error(expression) == "ERROR: <input>:-1:0: max recursion depth exceeded"


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("string(timestamp('2011-08-18T19:03:37.01+01:00'))", "2011-08-18T19:03:37.01+01:00"),
        ("string(timestamp('2011-08-18T19:03:37-05:30') + duration('1h'))", "2011-08-18T20:03:37-05:30"),
        ("string(timestamp('2011-08-18T19:03:37+00:00'))", "2011-08-18T19:03:37Z"),
        ("timestamp('2011-08-18T19:03:37+01:00').getHours()", 19),  # Go's time.Time keeps its zone
        ("timestamp('2011-08-18T19:03:37+01:00').getHours('UTC')", 18),
        ("timestamp('2011-08-18T19:03:37+01:00') == timestamp('2011-08-18T18:03:37Z')", True),
    ],
)
def test_a_timestamp_keeps_the_offset_it_was_written_with(expression, expected):
    assert evaluate(expression, DATA) == expected


# int64 edges, cel-spec integer_math style: cel-go's common/types/overflow.go checks every operation
# (`moduloInt64Checked` and `divideInt64Checked` refuse MinInt64 by -1, whose quotient is MaxInt64 + 1).
INT64_MIN = "-9223372036854775808"


@pytest.mark.parametrize(
    "expression",
    [
        f"{INT64_MIN} % -1",
        f"{INT64_MIN} / -1",
        f"-({INT64_MIN})",
        f"{INT64_MIN} * -1",
        f"{INT64_MIN} - 1",
        "9223372036854775807 + 1",
    ],
)
def test_int64_overflow_is_cel_gos_error(expression):
    assert error_of(expression) == "integer overflow"
    # the same operation on a runtime value (no constant folding) gives the same error
    assert error_of(expression.replace(INT64_MIN, f"[{INT64_MIN}][0]", 1)) == "integer overflow"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        (INT64_MIN, -(2**63)),
        (f"{INT64_MIN} % 1", 0),
        (f"{INT64_MIN} % 2", 0),
        (f"{INT64_MIN} % -2", 0),
        (f"{INT64_MIN} / 1", -(2**63)),
        (f"{INT64_MIN} + 1 % -1", -(2**63)),
        ("-9223372036854775807 % -1", 0),
        ("-7 % -1", 0),
        ("-7 % 3", -1),
        ("7 % -3", 1),
        (f"int('{INT64_MIN}') % 3", -2),
    ],
)
def test_int64_edges_that_do_not_overflow(expression, value):
    assert evaluate(expression, DATA) == value


@pytest.mark.parametrize(
    "literal",
    # 5,001 digits: more than Python reads (4,300), out of range all the same
    ["9223372036854775808", "-9223372036854775809", "1" + "0" * 5000, "-1" + "0" * 5000],
)
def test_int_literals_beyond_int64_do_not_compile(literal):
    assert "invalid int literal" in compile_error(literal)


@pytest.mark.parametrize("literal", ["18446744073709551616u", "1" + "0" * 5000 + "u"])
def test_uint_literals_beyond_uint64_do_not_compile(literal):
    assert "invalid uint literal" in compile_error(literal)


PLAIN = Env({}, homogeneous_literals=False)  # cel-spec's environment: mixed-key literals are not refused


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("{1: 'a', true: 'b'}[true]", "b"),
        ("{1: 'a', true: 'b'}[1]", "a"),
        ("{1: 'a', true: 'b'}[1u]", "a"),
        ("{1: 'a', true: 'b'}[1.0]", "a"),
        ("size({1: 'a', true: 'b', 0: 'c', false: 'd'})", 4),
        ("{1: 'a', true: 'b'} == {true: 'b', 1: 'a'}", True),
        ("{1: 'a', true: 'b'} == {1: 'a', true: 'c'}", False),
        ("{1: 'a', true: 'b'}.transformMap(k, v, v + 'x')[true]", "bx"),
        ("[1, true].transformMapEntry(i, v, {v: i})[true]", 1),
        ("{dyn(1): 'a', true: 'b'}.all(k, k == 1 || k == true)", True),
    ],
)
def test_bool_and_number_keys_stay_apart(expression, value):
    """CEL's `true` and `1` are different keys, which a Python dict would merge (True == 1)."""
    assert compile_program(expression, env=PLAIN).evaluate({}).value == value


def test_mixed_key_literals_are_refused_where_kubernetes_checks_them():
    assert compile_error("{1: 'a', true: 'b'}").startswith("ERROR: <input>:1:10: expected type 'int' but found 'bool'")
    assert compile_program("{dyn(1): 'a', true: 'b'}[true]", env=admission_env()).evaluate({}).value == "b"


@pytest.mark.parametrize(
    ("expression", "deduced"),
    [
        ("[1, dyn(2)]", "list(dyn)"),  # mostGeneral: dyn wins
        ("[[], [1]]", "list(list(int))"),  # `[]` is a free type variable
        ("true ? 1 : dyn(2)", "dyn"),
        ("true ? object : null", "dyn"),
        ("optional.none()", "optional_type(dyn)"),
        ("[optional.none(), optional.of('x')]", "list(optional_type(string))"),
    ],
)
def test_deduced_types_follow_cel_go_unification(expression, deduced):
    assert str(compile_program(expression, env=admission_env()).type) == deduced


def test_a_conditional_of_string_and_null_is_refused():
    assert compile_error("true ? 'x' : null").startswith(
        "ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, string, null)'"
    )
    assert compile_error("true ? 1 : 'x'").startswith(
        "ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, int, string)'"
    )


def test_transform_results_of_mixed_or_wrong_types_do_not_compile():
    """Branches of different types do not unify (`_?_:_`), and transformMapEntry's step `@mapInsert` takes
    only a map (ext/comprehensions.go)."""
    assert "applied to '(bool, int, string)'" in compile_error("[1, 2].transformList(i, v, i == 0 ? v : 'x')")
    assert compile_error("{'a': 1}.transformMapEntry(k, v, 1)").startswith(
        "ERROR: <input>:1:27: found no matching overload for '@mapInsert' applied to '(map(dyn, dyn), int)'"
    )
    assert str(compile_program("{'a': 1}.transformMapEntry(k, v, {v: k})", env=admission_env()).type) == (
        "map(int, string)"
    )


@pytest.mark.parametrize(
    "expression",
    [
        "{}.transformMapEntry(j, k, 'bad filter', {k: j})",  # cel-go's TestTwoVarComprehensionsStaticErrors
        "[1].transformList(i, v, 'bad', v)",
        "{'a': 1}.transformMap(k, v, 1, v)",
    ],
)
def test_a_transform_filter_that_is_not_a_bool_does_not_compile(expression):
    """With a filter the step is `filter ? <step> : __result__`, whose condition must be a bool."""
    assert "found no matching overload for '_?_:_' applied to '(" in compile_error(expression)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("{true: 1, false: 2, true: 3}[true]", 3),  # cel-go's evalMap: the last value of a repeated key
        ("{'a': 1, ?'a': optional.none()}", {}),  # an absent optional entry deletes the key set before
        ("size({0: 1, 0u: 2})", 2),  # Int(0) and Uint(0) are two Go map keys
        ("{0: 1, 0u: 2}[0u]", 2),  # Find: the key's own type first,
        ("{0: 1, 0u: 2}[0.0]", 1),  # a double as an int first, then as a uint
    ],
)
def test_map_literals_follow_cel_go_for_repeated_keys(expression, value):
    assert compile_program(expression, env=PLAIN).evaluate({}).value == value


def test_transform_map_entry_refuses_a_key_already_inserted():
    with pytest.raises(EvaluationError) as info:
        compile_program("[true, false, true].transformMapEntry(i, v, {v: i})", env=PLAIN).evaluate({})
    assert info.value.message == "insert failed: key true already exists"
