"""Kyverno's CEL environment includes cel-go's regex extension (ext.Regex): `regex.replace` with `\\N` group
references and an optional count, `regex.extractAll` with at most one capture group."""

from __future__ import annotations

import pytest

from evaluator import cel
from evaluator.policies.kyverno_mpol.compiler import environment


def run(expression: str):
    return cel.compile_program(expression, env=environment()).evaluate({}).value


def test_replace_with_group_references_and_a_count():
    assert run(r"""regex.replace("foo bar", "(fo)o (ba)r", r'\2 \1')""") == "ba fo"
    assert run(r"""regex.replace("docker.io/nginx:1", "^docker\\.io/", "myregistry.io/")""") == "myregistry.io/nginx:1"
    assert run("""regex.replace("aaa", "a", "b", 2)""") == "bba"
    assert run("""regex.replace("aaa", "a", "b", 0)""") == "aaa"


def test_extract_all():
    assert run(r"""regex.extractAll("a1 b2 c3", "[a-z](\\d)")""") == ["1", "2", "3"]
    assert run(r"""regex.extractAll("a1 b2 c3", "[a-z]\\d", 2)""") == ["a1", "b2"]


def test_errors_are_cel_errors():
    with pytest.raises(cel.EvaluationError, match="invalid replacement string"):
        run(r"""regex.replace("abc", "b", r'\x')""")
    with pytest.raises(cel.EvaluationError, match="given regex is invalid"):
        run("""regex.replace("abc", "(", "x")""")


def test_the_kubernetes_environment_does_not_have_it():
    with pytest.raises(cel.CompileError, match="undeclared reference to 'regex'"):
        cel.compile_program('regex.replace("a", "a", "b")', env=cel.admission_env())
