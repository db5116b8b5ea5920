"""cel-spec's conformance tests, for every file the Kubernetes CEL environment enables."""

from __future__ import annotations

import json

import pytest

from evaluator.cel import CELError, Env, compile_program
from evaluator.cel.library.strings import strings_registry
from evaluator.cel.registry import REGISTRY
from evaluator.cel.types import parse_type

from .skips import CEL_SPEC_FILES_NOT_IN_KUBERNETES, CEL_SPEC_TESTS, CHECK_ONLY, NEEDS_PROTOBUF
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
                elif test.get("check_only"):
                    marks.append(pytest.mark.skip(reason=CHECK_ONLY))
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


@pytest.mark.parametrize("test", list(_cases()))
def test_cel_spec(test):
    bindings = {k: decode(v) for k, v in (test.get("bindings") or {}).items()}
    expect = test["expect"]
    if "typed_result" in expect:
        expect = {"value": expect["typed_result"]["value"]}
    try:
        program = compile_program(test["expr"], env=_env(test))
        value = program.evaluate(bindings).value
    except CELError as e:
        assert "eval_error" in expect or "any_eval_errors" in expect, f"unexpected error: {e.message}"
        return
    assert "value" in expect, f"expected an error, got {value!r}"
    want = decode(expect["value"])
    assert same(value, want), f"got {value!r}, want {want!r}"
