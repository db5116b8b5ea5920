"""The Kubernetes quantity library on the port of apimachinery's resource.Quantity."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from evaluator.cel import CELError, CompileError, compile_program
from evaluator.cel.env import admission_env
from evaluator.cel.library.quantity import (
    ERR_FORMAT,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Quantity,
    QuantityError,
    compare_decimal,
    parse_quantity,
)
from tests.evaluator.cel.library.helpers import cost_of, error_of, run

HUGE = "9999999999999999999999999999999999999"


# From Kubernetes' quantity_test.go and the quantity section of the CRD validation test.
@pytest.mark.parametrize(
    "expr, want",
    [
        ('isQuantity("20")', True),
        ('isQuantity("20M")', True),
        ('isQuantity("20Mi")', True),
        ('isQuantity("20Mo")', False),
        ('isQuantity("10Mm")', False),
        ('isQuantity("1,3G")', False),
        ('isQuantity("200K")', False),
        # apimachinery's parser reads a missing number as 0 (the library's doc comment says "error"):
        ('quantity("Mi") == quantity("0")', True),
        ('isQuantity(" 1")', False),
        ('isQuantity("1 ")', False),
        ('isQuantity(".5i")', False),
        ('isQuantity("Three")', False),
        ('quantity("200M") == quantity("200M")', True),
        ('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
        (
            'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && '
            'quantity("0.002G") == quantity("2000k")',
            True,
        ),
        ('quantity("200M") == quantity("0.3G")', False),
        ('quantity("50M").isLessThan(quantity("50Mi"))', True),
        ('quantity("50M").isLessThan(quantity("100M"))', True),
        ('quantity("100M").isLessThan(quantity("50M"))', False),
        ('quantity("50Mi").isGreaterThan(quantity("50M"))', True),
        ('quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
        ('quantity("50M").isGreaterThan(quantity("100M"))', False),
        ('quantity("200M").compareTo(quantity("0.2G"))', 0),
        ('quantity("50M").compareTo(quantity("50Mi"))', -1),
        ('quantity("50Mi").compareTo(quantity("50M"))', 1),
        ('quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
        ('quantity("50k").add(20).isLessThan(quantity("50020"))', False),
        ('quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
        ('quantity("50k").sub(20) == quantity("49980")', True),
        ('quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
        ('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
        ('quantity("50k").asInteger()', 50000),
        ('quantity("50000000G").isInteger()', True),
        (f'quantity("{HUGE}G").isInteger()', False),
        ('quantity("50").isInteger()', True),
        ('quantity("1.5").isInteger()', False),
        ('quantity("1.5Ki").isInteger()', False),  # an inf.Dec, even though 1536 is whole
        ('quantity("50.703k").asApproximateFloat()', 50703.0),
        ('quantity("50k").sub(20000).asApproximateFloat() == 30000.0', True),
        (f'[quantity("{HUGE}")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)', True),
        ('sign(quantity("-1m"))', -1),
        ('sign(quantity("0Gi"))', 0),
        ('sign(quantity("5"))', 1),
        ('type(quantity("1")) == kubernetes.Quantity', True),
    ],
)
def test_expressions(expr, want):
    got = run(expr)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "expr, want",
    [
        ("isQuantity(self.val1)", True),
        ("isQuantity(self.val2)", True),
        ('quantity(self.val2) == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
        ('quantity(self.val1).isLessThan(quantity("100M"))', True),
        ('quantity(self.val2).isGreaterThan(quantity("50M"))', True),
        ('quantity(self.val2).compareTo(quantity("0.2G")) == 0', True),
        ('quantity("50k").add(quantity(self.val1)) == quantity("50.02k")', True),
        ('quantity("50k").sub(quantity(self.val1)) == quantity("49980")', True),
        ("quantity(self.val1).isInteger()", True),
    ],
)
def test_on_bound_values(expr, want):
    assert run(expr, self={"val1": "20", "val2": "200M"}) is want


@pytest.mark.parametrize(
    "expr, message",
    [
        ('quantity("10Mo")', ERR_FORMAT),
        ('quantity("10Mm")', ERR_SUFFIX),
        ('quantity("")', ERR_FORMAT),
        ('quantity(".e-10")', ERR_NUMERIC),
        (f'quantity("{HUGE}G").asInteger()', "cannot convert value to integer"),
        ('quantity("1.5").asInteger()', "cannot convert value to integer"),
    ],
)
def test_runtime_errors(expr, message):
    assert error_of(expr) == message


def test_format_error_quotes_the_go_pattern():
    assert ERR_FORMAT == ("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


@pytest.mark.parametrize("expr", ["isQuantity([1, 2, 3])", 'quantity("1").sign()', 'quantity("1") == 1'])
def test_compile_errors(expr):
    with pytest.raises(CompileError) as err:
        compile_program(expr, env=admission_env(()))
    assert "found no matching overload" in err.value.message


def test_result_equals_parsed_quantity():
    assert run('quantity("12Mi")') == parse_quantity("12Mi")
    assert run('quantity("6Mi").add(quantity("6Mi"))') == parse_quantity("12Mi")


@pytest.mark.parametrize(
    "text, unscaled, scale, is_dec, fmt",
    [
        ("12Mi", 12 * 2**20, 0, False, "BinarySI"),
        ("0.2G", 2, 8, False, "DecimalSI"),
        ("50.703k", 50703, 0, False, "DecimalSI"),
        ("1e3", 1, 3, False, "DecimalExponent"),
        ("1E", 1, 18, False, "DecimalSI"),  # E alone is exa
        ("-12.5m", -125, -4, False, "DecimalSI"),
        (".", 0, 0, False, "DecimalSI"),
        ("+", 0, 0, False, "DecimalSI"),
        ("1.5Ki", 1536 * 10**9, -9, True, "BinarySI"),
        ("0.000000000001", 1, -9, True, "DecimalSI"),  # rounded up to the nano
        ("100Ei", 2**63 - 1, 0, True, "BinarySI"),  # capped at int64
        (HUGE, int(HUGE) * 10**9, -9, True, "DecimalSI"),
    ],
)
def test_parse_representation(text, unscaled, scale, is_dec, fmt):
    q = parse_quantity(text)
    assert (q.unscaled, q.scale, q.is_dec, q.format) == (unscaled, scale, is_dec, fmt)


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("12Mi", "12Mi"),
        ("0.2G", "200M"),
        ("50.02k", "50020"),
        ("1e3", "1e3"),
        ("1.5Ki", "1536"),
        ("-12.5m", "-12500u"),
        ("0", "0"),
        ("1024", "1024"),
        ("1000m", "1"),
        ("0.5Ki", "512"),
    ],
)
def test_canonical_string(text, canonical):
    assert str(parse_quantity(text)) == canonical


@pytest.mark.parametrize(
    "text, message",
    [
        ("10Mo", ERR_FORMAT),
        ("1.2.3", ERR_FORMAT),
        ("1e", ERR_SUFFIX),
        ("1Kii", ERR_SUFFIX),
        ("1e99999999999999999999", ERR_SUFFIX),
        (".Ki1", ERR_SUFFIX),
        ("1Ki ", ERR_FORMAT),
        ("aoeu", ERR_FORMAT),
        ("-3.01e-", ERR_SUFFIX),
        ("1+1.0M", ERR_FORMAT),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(QuantityError) as err:
        parse_quantity(text)
    assert str(err.value) == message


def test_compare_is_exact_and_leaves_values_unchanged():
    one, huge = parse_quantity("1"), parse_quantity(HUGE)
    assert one.cmp(huge) == -1 and huge.cmp(one) == 1
    assert one.as_int64() == 1  # values are shared by compiled programs, so nothing mutates them
    assert compare_decimal(10, 0, 1, 1) == 0
    assert compare_decimal(-1, 100000, 1, -100000) == -1


def test_add_keeps_int64_until_overflow():
    big = Quantity(2**63 - 1, 0, False, "DecimalSI")
    total = big.add(Quantity(1, 0, False, "DecimalSI"))
    assert total.is_dec and total.unscaled == 2**63 and big.unscaled == 2**63 - 1


def test_approximate_float_uses_go_pow10():
    assert parse_quantity("1n").as_approximate_float() == 1e-09
    assert parse_quantity(HUGE + "G").as_approximate_float() == float(int(HUGE) * 10**18) * (1 / 1e9)
    assert parse_quantity("1e400").as_approximate_float() == float("inf")


def test_huge_exponents_do_not_stall():
    q = parse_quantity("1e2000000000")
    assert q.as_int64() is None
    assert q.cmp(parse_quantity("1")) == 1
    with pytest.raises(CELError):
        run('quantity("1e2000000000").add(quantity("1n"))')


@given(st.text(alphabet="0123456789.+-eEinumkKMGTP ", max_size=30))
def test_any_text_parses_or_fails_cleanly(text):
    try:
        q = parse_quantity(text)
    except QuantityError:
        assert run("isQuantity(s)", s=text) is False
        return
    assert run("isQuantity(s)", s=text) is True
    assert parse_quantity(str(q)) == q  # the canonical form denotes the same amount


# Kubernetes' cost_test.go runtime costs. Every literal is read from a variable here (one unit each), since
# the engine folds calls on constants.
@pytest.mark.parametrize(
    "expr, cost, reads",
    [
        ("quantity(a)", 1, 1),
        ("quantity(a) == quantity(b)", 3, 2),
        ("quantity(a).isLessThan(quantity(b))", 3, 2),
        ("quantity(a).compareTo(quantity(b)) > 0", 4, 2),
        ("quantity(a).add(20).sub(quantity(b)).sub(-50000).asInteger() > 0", 7, 2),
        ("quantity(a).isInteger()", 2, 1),
        ("quantity(a).asApproximateFloat() > 0.0", 3, 1),
    ],
)
def test_runtime_cost(expr, cost, reads):
    assert cost_of(expr, a="200M", b="50Mi") == cost + reads
