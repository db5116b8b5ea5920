"""The Kubernetes CEL library cases, run in our Kubernetes admission environment."""

from __future__ import annotations

import json
import re

import pytest

from evaluator.cel import CELError, CompileError, compile_program
from evaluator.cel.env import admission_env

from .skips import K8S_CEL_LIBRARY
from tests.shared_data import conformance_file

DATA = conformance_file("k8s-cel-library", "cases.jsonl")


def _cases():
    for line in DATA.read_text().splitlines():
        case = json.loads(line)
        marks = [pytest.mark.skip(reason=K8S_CEL_LIBRARY[case["id"]])] if case["id"] in K8S_CEL_LIBRARY else []
        yield pytest.param(case, id=f"{case['library']}:{case['id']}", marks=marks)


@pytest.mark.parametrize("case", list(_cases()))
def test_k8s_cel_library(case):
    expect = case["expect"]
    bindings = case.get("bindings") or {}
    env = admission_env(tuple(bindings) + ("self", "oldSelf"))
    try:
        program = compile_program(case["expr"], env=env)
    except CompileError as e:
        assert "compile_error_contains" in expect or "error_contains" in expect, f"compile error: {e.message}"
        _assert_message(e.message, expect.get("compile_error_contains", expect.get("error_contains")), expect)
        return
    assert "compile_error_contains" not in expect, "expected a compile error"
    try:
        value = program.evaluate(bindings).value
    except CELError as e:
        assert "error_contains" in expect, f"unexpected error: {e.message}"
        _assert_message(e.message, expect["error_contains"], expect)
        return
    assert "value" in expect, f"expected an error containing {expect.get('error_contains')!r}, got {value!r}"
    want = expect["value"]
    if expect.get("value_type") == "double":
        assert type(value) is float
    assert value == want and type(value) is type(want), f"got {value!r}, want {want!r}"


def _assert_message(message: str, fragment: str, expect: dict) -> None:
    if expect.get("error_exact"):
        assert message == fragment, f"{message!r} != {fragment!r}"
    elif expect.get("error_regex"):
        assert re.search(expect["error_regex"], message), f"{message!r} !~ {expect['error_regex']!r}"
    else:
        assert fragment in message, f"{fragment!r} not in {message!r}"
