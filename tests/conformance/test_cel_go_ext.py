"""cel-go's own tests of its extensions (strings, lists, sets, two-variable comprehensions, string.format,
optional values), run in our Kubernetes CEL environment and judged as each Go test judges its table.

Cases that differ *because* the Kubernetes environment differs from the one the Go test builds are listed in
`cel_go_ext_skips.py` with the reason; every other case must pass, and the pass count may not fall.
"""

from __future__ import annotations

import json

import pytest

from evaluator.cel import CELError, CompileError, Env, compile_program
from evaluator.cel.types import DYN, parse_type
from evaluator.cel.values import OPTIONAL_NONE, Optional, UInt

from .cel_go_ext_skips import KUBERNETES_DIFFERS, OLDER_CEL_GO
from .tagged import same
from tests.shared_data import conformance_file

DATA = conformance_file("cel-go-ext", "cases.jsonl")
CASES = [json.loads(line) for line in DATA.read_text().splitlines()]
# Passing cases today (of 445; 65 differ by environment): raise it when more pass, never lower it.
PASSING_AT_LEAST = 379

# Variables the Go tests declare for the whole table (cel.Variable in their env).
_TABLE_VARIABLES = {
    "TestOptionalValuesEval": {
        "m": "map(string, map(string, string))",
        "l": "list(string)",
        "optm": "optional_type(map(string, map(string, string)))",
        "optl": "optional_type(list(string))",
        "x": "optional_type(int)",
        "y": "optional_type(int)",
        "z": "int",
    },
    "TestOptionalValuesEvalErrorCases": {"x": "optional_type(int)", "y": "optional_type(int)", "z": "int"},
}


def decode(v):
    """The extraction's tags: {"$optional": null | [v]}, {"$uint": n}."""
    if isinstance(v, dict):
        if "$optional" in v:
            return OPTIONAL_NONE if v["$optional"] is None else Optional(decode(v["$optional"][0]))
        if "$uint" in v:
            return UInt(v["$uint"])
        return {k: decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decode(x) for x in v]
    return v


def _env(case: dict) -> Env:
    table = case["id"].split("#")[1].split("/")[0]
    variables = {name: parse_type(t) for name, t in _TABLE_VARIABLES.get(table, {}).items()}
    variables.update({name: parse_type(t) for name, t in (case.get("vars") or {}).items()})
    for name in case.get("in") or {}:
        variables.setdefault(name, DYN)
    return Env(variables, check=not case.get("parseOnly"), name="cel-go-ext")


def run(case: dict) -> str | None:
    """None when the case passes, else what differs."""
    judge, err = case["judge"], case.get("err")
    try:
        program = compile_program(case["expr"], env=_env(case))
    except CompileError as e:
        if judge in ("compile_error", "true_or_error", "format") and err and err in e.message:
            return None
        return f"compile error: {e.message}"
    if judge == "compile_error":
        return f"compiled, want a compile error containing {err!r}"
    try:
        value = program.evaluate(decode(case.get("in") or {})).value
    except CELError as e:
        if judge == "out":
            return None if e.message == case["out"] else f"error {e.message!r}, want {case['out']!r}"
        if err and err in e.message:
            return None
        return f"error: {e.message}"
    if err:
        return f"got {value!r}, want an error containing {err!r}"
    if judge == "format":
        want = case.get("expectedOutput", "")
        return None if value == want else f"got {value!r}, want {want!r}"
    if judge == "out":
        want = decode(case["out"])
        return None if same(value, want) else f"got {value!r}, want {want!r}"
    return None if value is True else f"got {value!r}, want true"


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_cel_go_ext(case):
    reason = KUBERNETES_DIFFERS.get(case["id"]) or OLDER_CEL_GO.get(case["id"])
    problem = run(case)
    if reason is not None:
        if problem is None:
            pytest.fail(f"listed as differing ({reason}) but passes: remove it from cel_go_ext_skips.py")
        pytest.skip(f"{reason}: {problem}")
    assert problem is None, problem


def test_pass_count_holds():
    """At least PASSING_AT_LEAST pass, and at least 99% of the cases the Kubernetes environment can run."""
    passing = sum(run(c) is None for c in CASES)
    applicable = len(CASES) - len(KUBERNETES_DIFFERS)
    assert passing >= PASSING_AT_LEAST, f"{passing}/{len(CASES)} pass, fewer than {PASSING_AT_LEAST}"
    assert passing >= 0.99 * applicable, f"{passing}/{applicable} of the applicable cases pass, under 99%"
    assert not (set(KUBERNETES_DIFFERS) | set(OLDER_CEL_GO)) - {c["id"] for c in CASES}, "skips that name no case"
