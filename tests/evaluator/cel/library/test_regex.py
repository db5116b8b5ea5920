"""RE2 `matches`, Kubernetes' `find`/`findAll`: Go's matching rules and Go's error texts.

Expected errors and findAll results were produced by Go's regexp package.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.cel import CompileError
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library import regex as R
from evaluator.cel.registry import NOT_CONSTANT, REGISTRY
from tests.evaluator.cel.library.helpers import check_k8s_library_case, error_of, k8s_library_cases, run


@pytest.mark.parametrize(
    "pattern, go_error",
    [
        (")", "unexpected ): `)`"),
        ("x++", "invalid nested repetition operator: `++`"),
        ("[a", "missing closing ]: `[a`"),
        ("(a", "missing closing ): `(a`"),
        ("a{2,1}", "invalid repeat count: `{2,1}`"),
        ("\\", "trailing backslash at end of expression: ``"),
        ("\\q", "invalid escape sequence: `\\q`"),
        ("*", "missing argument to repetition operator: `*`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("(?P<n", "invalid named capture: `(?P<n`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
        ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
        ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
        ("\\C", "invalid escape sequence: `\\C`"),
    ],
)
def test_compile_errors_read_as_go(pattern, go_error):
    regex, error = R.compile_pattern(pattern)
    assert regex is None and error == f"error parsing regexp: {go_error}"


def test_patterns_are_cached():
    assert R.compile_pattern("[0-9]+")[0] is R.compile_pattern("[0-9]+")[0]


def test_no_stderr_noise():
    code = "from evaluator.cel.library.regex import compile_pattern; compile_pattern(')'); compile_pattern('[b')"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(R.__file__).resolve().parents[3]
    )
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize(
    "pattern, text, n, want",
    [
        ("a*", "baaac", -1, ["", "aaa", ""]),
        ("[0-9]*", "123 abc 456", -1, ["123", "", "", "", "", "456"]),
        ("[0-9]*", "123 abc 456", 1, ["123"]),
        ("", "abc", -1, ["", "", "", ""]),
        ("x*", "", -1, [""]),
        ("é*", "aéé", -1, ["", "éé"]),
        ("b|", "abc", -1, ["", "b", ""]),
        ("[0-9]+", "a1b22c333", 2, ["1", "22"]),
        ("[0-9]+", "a1b22c333", 0, []),
    ],
)
def test_find_all_is_go_find_all_string(pattern, text, n, want):
    assert R.find_all(text, pattern, n) == want


def test_find_and_matches():
    assert R.find("abc 123", "[0-9]+") == "123" and R.find("abc", "xyz") == ""
    assert R.find("abc 123", "[0-9]*") == ""  # leftmost-first: the empty match at 0
    assert R.matches("hello", "^h.*o$") and not R.matches("hello", "^e")
    assert R.matches("x\ny", "^y$") is False and R.matches("x\ny", "(?m)^y$") is True


def test_runtime_errors_are_worded_as_cel_go_and_kubernetes():
    with pytest.raises(CELEvalError) as info:
        R.matches("a", "[a")
    assert info.value.message == "error parsing regexp: missing closing ]: `[a`"
    with pytest.raises(CELEvalError) as info:
        R.find("a", "[a")
    assert info.value.message == "Illegal regex: error parsing regexp: missing closing ]: `[a`"
    with pytest.raises(CELEvalError, match="^Illegal regex: "):
        R.find_all("a", "(", 2)


def test_constant_validators():
    assert R.validate_matches(("x", ")")) == ("invalid matches argument", 1)
    assert R.validate_matches(("x", NOT_CONSTANT)) is None
    assert R.validate_matches((NOT_CONSTANT, "[0-9]+")) is None
    # cel-go's validator looks at the first non-receiver argument: the string of the global form
    assert R.validate_matches((")", "a"), member=False) == ("invalid matches argument", 0)
    assert R.validate_matches(("a", ")"), member=False) == "error parsing regexp: unexpected ): `)`"
    assert R.validate_find(("s", ")")) == "error parsing regexp: unexpected ): `)`"
    assert R.validate_find(("s", "ok")) is None


def test_declarations_and_costs():
    sigs = {o.signature(): o for n in ("matches", "find", "findAll") for o in REGISTRY.overloads(n)}
    assert set(sigs) >= {
        "matches(string, string) -> bool",
        "string.matches(string) -> bool",
        "string.find(string) -> string",
        "string.findAll(string) -> list(string)",
        "string.findAll(string, int) -> list(string)",
    }
    assert sigs["matches(string, string) -> bool"].cost == 1  # cel-go's global overload has no cost rule
    # ceil((1 + 19) * 0.1) * ceil(6 * 0.25)
    assert sigs["string.find(string) -> string"].cost(("x" * 19, "[0-9]+"), "") == 4
    assert sigs["string.matches(string) -> bool"].cost(("", "abcd"), False) == 1


def test_through_cel():
    assert run("'abc 123'.find('[0-9]+')") == "123"
    assert run("s.findAll('[0-9]+', 1)", s="1 2 3") == ["1"]
    assert run("matches('abc', 'b')") is True
    assert run("s.matches(p)", s="abc", p="^a") is True
    assert "error parsing regexp: missing closing ]" in error_of("s.matches(p)", s="a", p="[a")
    assert "Illegal regex: error parsing regexp" in error_of("s.find(p)", s="a", p="[a")
    with pytest.raises(CompileError, match="invalid matches argument"):
        run("'x'.matches(')')")
    with pytest.raises(CompileError, match="error parsing regexp: unexpected \\): `\\)`"):
        run("s.findAll(')')", s="x")


@pytest.mark.parametrize("case", k8s_library_cases("k8s regex"), ids=lambda c: c["id"])
def test_k8s_conformance(case):
    check_k8s_library_case(case)


def test_find_all_is_linear_in_the_text():
    import time

    text = "é1 " * 25_000
    started = time.monotonic()
    assert len(R.find_all(text, "[0-9]")) == 25_000
    assert time.monotonic() - started < 5  # re-encoding the text per match made this take ~20 s
