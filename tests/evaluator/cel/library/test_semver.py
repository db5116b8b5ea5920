"""The Kubernetes semver library (version 1, with the normalize overloads) on a port of blang/semver."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from evaluator.cel import CompileError, compile_program
from evaluator.cel.env import admission_env
from evaluator.cel.library.semver import SemverError, normalize_and_parse, parse_semver
from tests.evaluator.cel.library.helpers import cost_of, error_of, run


# From Kubernetes' semver_test.go.
@pytest.mark.parametrize(
    "expr, want",
    [
        ('isSemver("1.2.3-beta.1+build.1")', True),
        ('isSemver("")', False),
        ('isSemver("v1.0.0")', False),
        ('isSemver(" 1.0.0")', False),
        ('isSemver("1. 0.0")', False),
        ('isSemver("1.0.0 ")', False),
        ('isSemver("01.01.01")', False),
        ('isSemver("1")', False),
        ('isSemver("1.1")', False),
        ('isSemver("", true)', False),
        ('isSemver(" 1.0.0", true)', False),
        ('isSemver("1. 0.0", true)', False),
        ('isSemver("1.0.0 ", true)', False),
        ('isSemver("v1.0.0", true)', True),
        ('isSemver("01.01.01", true)', True),
        ('isSemver("1", true)', True),
        ('isSemver("1.1", true)', True),
        ('isSemver("1.1", false)', False),
        ('isSemver("1.1-rc.1", true)', False),
        ('semver("v01.01", true) == semver("1.1.0")', True),
        ('semver("1.2.3") == semver("1.2.3")', True),
        ('semver("1.2.3") == semver("1.0.0")', False),
        ('semver("1.2.3+a") == semver("1.2.3+b")', True),  # build metadata has no precedence
        ('semver("1.0.0").isLessThan(semver("1.2.3"))', True),
        ('semver("1.0.0").isLessThan(semver("1.0.0"))', False),
        ('semver("1.2.3").isGreaterThan(semver("1.0.0"))', True),
        ('semver("1.0.0").isGreaterThan(semver("1.0.0"))', False),
        ('semver("1.2.3").compareTo(semver("1.2.3"))', 0),
        ('semver("1.0.0").compareTo(semver("1.2.3"))', -1),
        ('semver("1.2.3").compareTo(semver("1.0.0"))', 1),
        ('semver("1.0.0-alpha").compareTo(semver("1.0.0"))', -1),
        ('semver("1.0.0-alpha.1").compareTo(semver("1.0.0-alpha"))', 1),
        ('semver("1.0.0-2").compareTo(semver("1.0.0-10"))', -1),
        ('semver("1.0.0-rc").compareTo(semver("1.0.0-10"))', 1),
        ('semver("1.2.3").major()', 1),
        ('semver("1.2.3").minor()', 2),
        ('semver("1.2.3").patch()', 3),
        ('semver("18446744073709551615.0.0").major()', -1),  # Go's int64(uint64) wraps
        ('type(semver("1.0.0")) == kubernetes.Semver', True),
    ],
)
def test_expressions(expr, want):
    got = run(expr)
    assert got == want and type(got) is type(want)


def test_value_is_a_semver():
    assert run('semver("1.2.3")') == parse_semver("1.2.3")
    assert str(run('semver("v1.2", true)')) == "1.2.0"


@pytest.mark.parametrize(
    "expr, message",
    [
        ('semver("v1.0")', "No Major.Minor.Patch elements found"),
        ('semver("")', "Version string empty"),
        ('semver("v1.0.0")', 'Invalid character(s) found in major number "v1"'),
        ('semver("1.x.0")', 'Invalid character(s) found in minor number "x"'),
        ('semver("1.0.x")', 'Invalid character(s) found in patch number "x"'),
        ('semver("01.0.0")', 'Major number must not contain leading zeroes "01"'),
        ('semver("1.00.0")', 'Minor number must not contain leading zeroes "00"'),
        ('semver("1.0.00")', 'Patch number must not contain leading zeroes "00"'),
        ('semver("1.0.0-")', "Prerelease is empty"),
        ('semver("1.0.0-01")', 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ('semver("1.0.0-a_b")', 'Invalid character(s) found in prerelease "a_b"'),
        ('semver("1.0.0+")', "Build meta data is empty"),
        ('semver("1.0.0+a_b")', 'Invalid character(s) found in build meta data "a_b"'),
        ('semver("1..0")', 'strconv.ParseUint: parsing "": invalid syntax'),
        ('semver("99999999999999999999.0.0")', 'strconv.ParseUint: parsing "99999999999999999999": value out of range'),
        ('semver("1.0-rc", true)', "short version cannot contain PreRelease/Build meta data"),
    ],
)
def test_runtime_errors_are_exact(expr, message):
    assert error_of(expr) == message


def test_rejects_non_strings_at_compile_time():
    with pytest.raises(CompileError) as err:
        compile_program("isSemver([1, 2, 3])", env=admission_env(()))
    assert "found no matching overload for 'isSemver' applied to" in err.value.message


@pytest.mark.parametrize(
    "text, normalized",
    [
        ("v1", "1.0.0"),
        ("1.2", "1.2.0"),
        ("01.02.03", "1.2.3"),
        ("00.0.0", "0.0.0"),
        ("1.2.3-beta.1+build.1", "1.2.3-beta.1+build.1"),
        ("1.0.0-0a", "1.0.0-0a"),
    ],
)
def test_normalize(text, normalized):
    assert str(normalize_and_parse(text)) == normalized


def test_parse_errors_are_value_errors():
    with pytest.raises(SemverError):
        parse_semver("1.2")


@given(st.text(alphabet="0123456789.+-vab ", max_size=20), st.booleans())
def test_any_text_parses_or_fails_cleanly(text, normalize):
    ok = run("isSemver(s, n)", s=text, n=normalize)
    try:
        v = normalize_and_parse(text) if normalize else parse_semver(text)
    except SemverError:
        assert ok is False
        return
    assert ok is True and parse_semver(str(v)) == v


# Kubernetes' cost_test.go runtime costs. Every literal is read from a variable here (one unit each), since
# the engine folds calls on constants.
@pytest.mark.parametrize(
    "expr, a, cost, reads",
    [
        ("semver(a)", "1.0.0", 1, 1),
        ("semver(a)", "1234.56789012345.67890123456789", 4, 1),
        ("semver(a).major()", "1.2.3", 2, 1),
        ("semver(a).isLessThan(semver(b))", "1.0.0", 3, 2),
        ("semver(a).compareTo(semver(b))", "1.0.0", 3, 2),
    ],
)
def test_runtime_cost(expr, a, cost, reads):
    assert cost_of(expr, a=a, b="1.1.0") == cost + reads
