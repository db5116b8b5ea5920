"""The public API of evaluator.cel: evaluate → plain JSON data, compile errors in cel-go's text form,
program caching, thread safety and the error classes other layers catch."""

from __future__ import annotations

import sys
import threading

import pytest

import evaluator.cel as cel
from evaluator.cel import (
    CELError,
    CompileError,
    CostBudget,
    CostLimitError,
    Evaluation,
    EvaluationError,
    Program,
    compile_program,
    evaluate,
    to_json,
    type_name,
)
from evaluator.cel.library.authz import Authorizer, AuthzDecision
from evaluator.cel.values import CelType, Duration, Optional, Timestamp, UInt


def test_contract_names_are_exported():
    for name in (
        "evaluate",
        "compile_program",
        "Program",
        "Evaluation",
        "CostBudget",
        "CELError",
        "CompileError",
        "EvaluationError",
        "CostLimitError",
        "to_json",
        "type_name",
    ):
        assert hasattr(cel, name), name
    assert issubclass(CompileError, CELError) and issubclass(EvaluationError, CELError)
    assert issubclass(CostLimitError, EvaluationError)


# --- evaluate(): every value kind as plain JSON-like data ----------------------------------------------
PLAIN = [
    ("null", None),
    ("true", True),
    ("1", 1),
    ("-9223372036854775808", -(2**63)),
    ("1.5", 1.5),
    ("'héllo'", "héllo"),
    ("[1, 2]", [1, 2]),
    ("[dyn(1), dyn('a'), null]", [1, "a", None]),
    ("{'a': {'b': [true]}}", {"a": {"b": [True]}}),
    ("18446744073709551615u", 2**64 - 1),
    ("[1u, 2u]", [1, 2]),
    ("b'abc'", "YWJj"),
    ("b'\\x00\\xff'", "AP8="),
    ("timestamp('2024-01-02T03:04:05Z')", "2024-01-02T03:04:05Z"),
    ("timestamp('2024-01-02T03:04:05.5Z')", "2024-01-02T03:04:05.500Z"),
    ("timestamp('2024-01-02T05:04:05+02:00')", "2024-01-02T03:04:05Z"),
    ("duration('1h')", "3600s"),
    ("duration('1.5s')", "1.500s"),
    ("duration('-1ms')", "-0.001s"),
    ("type(1)", "int"),
    ("type('a')", "string"),
    ("int", "int"),
    ("type(null)", "null_type"),
    ("type(timestamp('2024-01-01T00:00:00Z'))", "google.protobuf.Timestamp"),
    ("optional.of(1)", 1),
    ("optional.none()", None),
    ("{'a': 1}.?a", 1),
    ("{'a': 1}.?b", None),
    ("quantity('1Gi')", "1Gi"),
    ("ip('::1')", "::1"),
    ("cidr('10.0.0.0/8')", "10.0.0.0/8"),
    ("url('https://a.example/p?q=1')", "https://a.example/p?q=1"),
    ("semver('1.2.3')", "1.2.3"),
    ("{1: 'a'}", {"1": "a"}),
    ("{true: 1}", {"true": 1}),
]


@pytest.mark.parametrize("expression, expected", PLAIN, ids=[e for e, _ in PLAIN])
def test_evaluate_returns_plain_json_data(expression, expected):
    result = evaluate(expression, {})
    assert result == expected
    assert type(result) is type(expected)


def test_uint_map_keys_are_plain_numbers():
    assert evaluate("{1u: 'a'}", {}) == {"1": "a"}


def test_evaluate_result_is_json_serialisable_for_every_kind():
    import json

    kinds = [
        "b'x'",
        "timestamp('2024-01-01T00:00:00Z')",
        "duration('2s')",
        "1u",
        "type(1)",
        "optional.of(2)",
        "quantity('1')",
        "ip('1.2.3.4')",
        "cidr('1.2.3.0/24')",
        "url('http://x')",
        "semver('1.0.0')",
    ]
    expression = "[" + ", ".join(f"dyn({k})" for k in kinds) + "]"
    result = evaluate(expression, {})
    assert json.loads(json.dumps(result)) == result
    assert not any(isinstance(v, (UInt, bytes)) for v in result)


def test_evaluate_uses_the_admission_variables_as_plain_data():
    data = {"object": {"spec": {"replicas": 3}}, "params": {"maxReplicas": 5}}
    assert evaluate("object.spec.replicas <= params.maxReplicas", data) is True
    assert data == {"object": {"spec": {"replicas": 3}}, "params": {"maxReplicas": 5}}  # not converted in place


def test_evaluate_accepts_a_lazy_mapping():
    from collections.abc import Mapping

    class Lazy(Mapping):
        def __init__(self):
            self.read = []

        def __getitem__(self, key):
            self.read.append(key)
            if key == "environment":
                return "prod"
            raise KeyError(key)

        def __iter__(self):
            return iter(["environment"])

        def __len__(self):
            return 1

    lazy = Lazy()
    assert evaluate("variables.environment + '-x'", {"variables": lazy}) == "prod-x"
    assert lazy.read == ["environment"]


def test_evaluate_without_variables():
    assert evaluate("1 + 2") == 3


# --- to_json / type_name / values ------------------------------------------------------------------------
def test_to_json_and_type_name_of_library_values():
    assert to_json(UInt(3)) == 3 and type(to_json(UInt(3))) is int
    assert to_json(Optional(None, False)) is None
    assert to_json(CelType("map")) == "map"
    assert to_json(Duration(1_500_000_000)) == "1.500s"
    assert to_json(Timestamp(0)) == "1970-01-01T00:00:00Z"
    names = {
        e: type_name(compile_program(e).evaluate({}).value)
        for e in (
            "1",
            "1u",
            "1.0",
            "'a'",
            "b'a'",
            "null",
            "[1]",
            "{'a': 1}",
            "type(1)",
            "optional.of(1)",
            "timestamp('2024-01-01T00:00:00Z')",
            "duration('1s')",
            "quantity('1')",
            "ip('1.2.3.4')",
            "cidr('1.2.3.0/24')",
            "url('http://x')",
            "semver('1.0.0')",
            "format.dns1123Label()",
        )
    }
    assert names == {
        "1": "int",
        "1u": "uint",
        "1.0": "double",
        "'a'": "string",
        "b'a'": "bytes",
        "null": "null_type",
        "[1]": "list",
        "{'a': 1}": "map",
        "type(1)": "type",
        "optional.of(1)": "optional_type",
        "timestamp('2024-01-01T00:00:00Z')": "google.protobuf.Timestamp",
        "duration('1s')": "google.protobuf.Duration",
        "quantity('1')": "kubernetes.Quantity",
        "ip('1.2.3.4')": "net.IP",
        "cidr('1.2.3.0/24')": "net.CIDR",
        "url('http://x')": "kubernetes.URL",
        "semver('1.0.0')": "kubernetes.Semver",
        "format.dns1123Label()": "kubernetes.NamedFormat",
    }


def test_authorizer_decision_as_json():
    authorizer = Authorizer(lambda request: AuthzDecision("deny", "not today"))
    program = compile_program(
        "authorizer.group('apps').resource('deployments').check('create')", declared=("authorizer",)
    )
    decision = to_json(program.evaluate({"authorizer": authorizer}).value)
    assert decision["decision"] == "deny" and decision["reason"] == "not today"


# --- compile errors in cel-go's text form --------------------------------------------------------------
COMPILE_ERRORS = [
    ("foo == 1", 1, 1, "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^"),
    ("1 +\n  foo", 2, 3, "ERROR: <input>:2:3: undeclared reference to 'foo' (in container '')\n |   foo\n | ..^"),
    (
        "'😀' == foo",
        1,
        8,
        "ERROR: <input>:1:8: undeclared reference to 'foo' (in container '')\n | '😀' == foo\n | .\uff0e.....^",
    ),
    ("[1, 'a']", 1, 5, "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^"),
    (
        "'x'.bogus()",
        1,
        10,
        "ERROR: <input>:1:10: undeclared reference to 'bogus' (in container '')\n | 'x'.bogus()\n | .........^",
    ),
    (
        "size(1, 2) > 0",
        1,
        5,
        "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int, int)'\n"
        " | size(1, 2) > 0\n | ....^",
    ),
    (
        "1 + 'a'",
        1,
        3,
        "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^",
    ),
    ("'a'.matches('[')", 1, 13, None),
    ("duration('1x') > duration('1s')", 1, 10, None),
]


@pytest.mark.parametrize("expression, line, column, text", COMPILE_ERRORS, ids=[c[0] for c in COMPILE_ERRORS])
def test_compile_errors_have_location_and_cel_go_text(expression, line, column, text):
    with pytest.raises(CompileError) as info:
        compile_program(expression)
    error = info.value
    assert (error.line, error.column) == (line, column)
    assert error.expression == expression
    assert error.message.startswith(f"ERROR: <input>:{line}:{column}: ")
    if text is not None:
        assert error.message == text


@pytest.mark.parametrize(
    "expression, expected",
    [
        (
            "duration('1x') > duration('1s')",
            "ERROR: <input>:1:10: invalid duration argument\n | duration('1x') > duration('1s')\n | .........^",
        ),
        (
            "timestamp('yesterday') < timestamp('2024-01-01T00:00:00Z')",
            "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('yesterday') < timestamp('2024-01-01T00:00:00Z')\n"
            " | ..........^",
        ),
    ],
)
def test_invalid_constant_literals_use_cel_go_validator_text(expression, expected):
    with pytest.raises(CompileError) as info:
        compile_program(expression)
    assert info.value.message == expected


def test_error_at_a_bool_literal_points_at_it():
    with pytest.raises(CompileError) as info:
        compile_program("[1, true]")
    assert info.value.message == "ERROR: <input>:1:5: expected type 'int' but found 'bool'\n | [1, true]\n | ....^"


def test_mixed_map_value_error_points_at_the_value():
    with pytest.raises(CompileError) as info:
        compile_program("{'a': 1, 'b': 'x'}")
    assert (info.value.line, info.value.column) == (1, 15)


def test_syntax_error_text_matches_cel_go():
    with pytest.raises(CompileError) as info:
        compile_program("1 +")
    assert info.value.message == (
        "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
        "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^"
    )


def test_syntax_error_location_at_end_of_input():
    with pytest.raises(CompileError) as info:
        compile_program("object.spec.replicas >", declared=("object",))
    assert (info.value.line, info.value.column) == (1, 23)
    assert info.value.message.splitlines()[1:] == [" | object.spec.replicas >", " | ......................^"]


def test_evaluate_raises_compile_error_for_undeclared_names():
    with pytest.raises(CompileError):
        evaluate("nope.x == 1", {"object": {}})


# --- evaluation errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "expression, message",
    [
        ("object.missing", "no such key: missing"),
        ("object.items[3]", "index out of bounds: 3"),
        ("1 / object.zero", "division by zero"),
        ("object.items + 1", "no such overload"),
    ],
)
def test_evaluation_errors(expression, message):
    with pytest.raises(EvaluationError) as info:
        evaluate(expression, {"object": {"items": [1], "zero": 0}})
    assert message in info.value.message
    assert info.value.expression == expression
    assert not isinstance(info.value, CompileError)


def test_errors_are_absorbed_like_cel_go():
    act = {"object": {}}
    assert evaluate("object.missing == 1 || true", act) is True
    assert evaluate("false && object.missing == 1", act) is False
    assert evaluate("[1, 2].exists(x, x == 2 || object.missing)", act) is True


# --- programs and caching ------------------------------------------------------------------------------
def test_program_is_cached_by_expression_and_environment():
    first = compile_program("x.size() > 1", declared=("x",))
    assert compile_program("x.size() > 1", declared=("x",)) is first
    assert compile_program("x.size() > 1", declared=("x", "y")) is not first
    assert compile_program("x.size() > 2", declared=("x",)) is not first
    mutating = cel.admission_env(mutating=True)
    assert compile_program("x.size() > 1", declared=("x",), env=mutating) is not first


def test_program_evaluate_returns_value_and_cost():
    program = compile_program("object.a + 1", declared=("object",))
    assert isinstance(program, Program)
    result = program.evaluate({"object": {"a": 41}})
    assert isinstance(result, Evaluation)
    assert result.value == 42 and result.cost == 3


def test_compile_errors_are_not_cached_as_programs():
    for _ in range(2):
        with pytest.raises(CompileError):
            compile_program("1 +")


def test_program_timeout_interrupts_a_long_evaluation():
    program = compile_program("l.all(x, l.all(y, x + y >= 0))", declared=("l",))
    with pytest.raises(EvaluationError) as info:
        program.evaluate({"l": list(range(1000))}, timeout=0.005)  # ~0.2 s of work before the cost limit
    assert not isinstance(info.value, CostLimitError)
    assert "interrupted" in info.value.message


# --- thread safety ----------------------------------------------------------------------------------------
def test_one_program_from_eight_threads_has_no_cross_talk():
    expression = (
        "object.items.filter(i, i.owner == params.owner).map(i, i.name + '@' + variables.env)"
        " + [string(size(object.items))]"
    )
    program = compile_program(expression, declared=("object", "params", "variables"))
    failures: list[str] = []
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        items = [{"name": f"t{n}-{i}", "owner": f"o{i % 3}"} for i in range(20 + n)]
        act = {"object": {"items": items}, "params": {"owner": f"o{n % 3}"}, "variables": {"env": f"env{n}"}}
        expected = [f"{i['name']}@env{n}" for i in items if i["owner"] == f"o{n % 3}"] + [str(len(items))]
        barrier.wait()
        for _ in range(200):
            got = program.evaluate(act).value
            if got != expected:
                failures.append(f"thread {n}: {got[:3]} != {expected[:3]}")
                return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


def test_compile_from_eight_threads_gives_one_working_program_each():
    results: list[object] = [None] * 8

    def worker(n: int) -> None:
        try:
            program = compile_program(f"x * {n + 1000} + y", declared=("x", "y"))
            results[n] = program.evaluate({"x": 2, "y": n}).value
        except Exception as e:  # noqa: BLE001 - recorded and asserted below
            results[n] = e

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [2 * (n + 1000) + n for n in range(8)]


def test_budgets_are_independent_between_threads():
    program = compile_program("l.all(x, x >= 0)", declared=("l",))
    act = {"l": list(range(100))}
    cost = program.evaluate(act).cost
    budgets = [CostBudget(cost * 10) for _ in range(4)]

    def worker(budget: CostBudget) -> None:
        for _ in range(10):
            program.evaluate(act, budget)

    threads = [threading.Thread(target=worker, args=(b,)) for b in budgets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [b.remaining for b in budgets] == [0, 0, 0, 0]


def test_recursion_limit_text_matches_cel_go():
    with pytest.raises(CompileError) as info:
        compile_program("(" * 300 + "1" + ")" * 300)
    assert info.value.message == "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"


def test_no_snippet_for_very_long_lines():
    expression = "x == '" + "a" * 20_000 + "' && nope"
    with pytest.raises(CompileError) as info:
        compile_program(expression, declared=("x",))
    assert (
        info.value.message
        == f"ERROR: <input>:1:{len(expression) - 3}: undeclared reference to 'nope' (in container '')"
    )


def test_evaluate_json_gives_value_type_and_cost():
    outcome = cel.evaluate_json("[1, 2, 3].map(x, x * 2)", {})
    assert outcome == cel.JSONEvaluation([2, 4, 6], "list", outcome.cost) and outcome.cost > 0
    assert cel.evaluate_json("object.n + 1u", {"object": {"n": UInt(1)}}).type == "uint"
    assert cel.evaluate_json("duration('1.5s')").value == "1.500s"


def test_evaluate_json_raises_the_engines_errors():
    with pytest.raises(cel.CompileError):
        cel.evaluate_json("1 +")
    with pytest.raises(cel.EvaluationError):
        cel.evaluate_json("x.missing", {"x": {}})
