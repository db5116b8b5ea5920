"""cel-spec's conformance tests, for every file the Kubernetes CEL environment enables."""

from __future__ import annotations

import json
import re

import pytest

from evaluator.cel import CELError, Env, compile_program
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.strings import strings_registry
from evaluator.cel.registry import REGISTRY
from evaluator.cel.types import parse_type

from .skips import CEL_SPEC_FILES_NOT_IN_KUBERNETES, CEL_SPEC_TESTS, NEEDS_PROTOBUF
from .tagged import decode, same
from tests.shared_data import conformance_file

DATA = conformance_file("cel-spec", "README.md").parent


def _cases():
    files = sorted(DATA.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"conformance data missing: no cel-spec *.json in {DATA}")
    for path in files:
        name = path.stem
        if name.startswith("baseline"):
            continue  # our recorded outcomes, not tests
        data = json.loads(path.read_text())
        for section in data["sections"]:
            for test in section["tests"]:
                case_id = f"{name}/{section['name']}/{test['name']}"
                marks = []
                if name in CEL_SPEC_FILES_NOT_IN_KUBERNETES:  # reported, so the counts show what is not run
                    marks.append(pytest.mark.skip(reason=f"{name}: {CEL_SPEC_FILES_NOT_IN_KUBERNETES[name]}"))
                elif test.get("needs_protobuf"):
                    marks.append(pytest.mark.skip(reason=NEEDS_PROTOBUF))
                elif case_id in CEL_SPEC_TESTS:
                    marks.append(pytest.mark.skip(reason=CEL_SPEC_TESTS[case_id]))
                yield pytest.param(dict(test, file=name), id=case_id, marks=marks)


def _env(test: dict) -> Env:
    variables = {}
    for decl in test.get("type_env") or []:
        if "ident" in decl:
            variables[decl["name"]] = parse_type(decl["ident"]["type"])
    for name in test.get("bindings") or {}:
        variables.setdefault(name, parse_type("dyn"))
    # cel-spec's string_ext follows the newest strings extension; Kubernetes pins version 2 (see skips.py).
    registry = _STRINGS_V4 if test.get("file") == "string_ext" else REGISTRY
    declared = [d for d in test.get("type_env") or [] if "function" in d]
    if declared:
        registry = registry.extended()
        for decl in declared:
            for overload in decl["function"]["overloads"]:
                params = [_type_text(p) for p in overload["params"]]
                receiver = f"{params.pop(0)}." if overload.get("is_instance_function") else ""
                signature = f"{receiver}{decl['name']}({', '.join(params)}) -> {_type_text(overload['result_type'])}"
                registry.add(signature, _declared_only, id=overload["overload_id"])
    return Env(
        variables,
        check=not test.get("disable_check"),
        homogeneous_literals=False,
        validate_literals=False,
        container=test.get("container") or "",
        registry=registry,
        name=f"cel-spec-{test.get('file')}",
    )


_STRINGS_V4 = strings_registry(4)


def _type_text(text: str) -> str:
    """cel-spec's `param(T)` is a type parameter, which our signatures write as a bare capital letter."""
    return re.sub(r"param\((\w+)\)", r"\1", text)


def _declared_only(*args):
    raise CELEvalError("declared by the test for type checking only")


@pytest.mark.parametrize("test", list(_cases()))
def test_cel_spec(test):
    bindings = {k: decode(v) for k, v in (test.get("bindings") or {}).items()}
    expect = test["expect"]
    if "typed_result" in expect:
        expect = {"value": expect["typed_result"]["value"]}
    try:
        program = compile_program(test["expr"], env=_env(test))
        if test.get("check_only"):  # the type cel-go's checker deduces; nothing is evaluated
            assert str(program.type) == expect_deduced(test), f"deduced {program.type}"
            return
        value = program.evaluate(bindings).value
    except CELError as e:
        assert "eval_error" in expect or "any_eval_errors" in expect, f"unexpected error: {e.message}"
        return
    assert "value" in expect, f"expected an error, got {value!r}"
    want = decode(expect["value"])
    assert same(value, want), f"got {value!r}, want {want!r}"


def expect_deduced(test: dict) -> str:
    return _type_text(test["expect"]["typed_result"]["deduced_type"])
