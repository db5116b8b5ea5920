"""The Kubernetes CIDR library: netip.ParsePrefix semantics, containment, masking and exact messages."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.cidr import CIDR, parse_cidr
from evaluator.cel.library.ip import parse_addr
from tests.evaluator.cel.library.helpers import cost_of, error_of, run


# From Kubernetes' cidr_test.go and the CIDR part of the CRD validation test.
@pytest.mark.parametrize(
    "expr, want",
    [
        ('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
        ('cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', False),
        ('cidr("192.168.0.0/24").containsIP("192.168.0.1")', True),
        ('cidr("192.168.0.0/24").containsIP("192.168.1.1")', False),
        ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
        ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', True),
        ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', False),
        ('cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', False),
        ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', True),
        ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', False),
        ('cidr("192.168.0.0/24").prefixLength()', 24),
        ('cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', True),
        ('cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', False),
        ('cidr("2001:db8::/32").containsIP("2001:db8::1")', True),
        ('cidr("2001:db8::/32").containsIP("2001:dc8::1")', False),
        ('cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', True),
        ('cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', False),
        ('cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', True),
        ('cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', False),
        ('cidr("2001:db8::/32").prefixLength()', 32),
        ('cidr("0.0.0.0/0").containsIP(ip("255.1.2.3"))', True),
        ('cidr("0.0.0.0/0").containsIP(ip("::1"))', False),
        ('cidr("::/0").containsCIDR(cidr("10.0.0.0/8"))', False),
        ('string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
        ('string(cidr("192.168.0.1/24"))', "192.168.0.1/24"),
        ('string(cidr("2001:db8:1::/32").masked())', "2001:db8::/32"),
        ('type(cidr("192.168.0.0/24")) == net.CIDR', True),
        ('type(cidr("2001:db8::/32").ip()) == net.IP', True),
        ("cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", True),
        ("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", False),
        ("cidr('::1/128').ip().family() == 6", True),
        ('isCIDR("10.0.0.0/8")', True),
        ('isCIDR("10.0.0.0")', False),
        ('isCIDR("10.0.0.0/33")', False),
        ('isCIDR("10.0.0.0/08")', False),
        ('isCIDR("::ffff:1.2.3.4/96")', False),
        ('isCIDR("fe80::1%eth0/64")', False),
    ],
)
def test_expressions(expr, want):
    got = run(expr)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "expr, want",
    [
        ('cidr("192.168.0.0/24").ip()', parse_addr("192.168.0.0")),
        ('cidr("192.168.0.1/24").masked()', CIDR(parse_addr("192.168.0.0"), 24)),
        ('cidr("192.168.0.0/24").masked()', CIDR(parse_addr("192.168.0.0"), 24)),
        ('cidr("2001:db8::/32").ip()', parse_addr("2001:db8::")),
        ('cidr("2001:db8:1::/32").masked()', CIDR(parse_addr("2001:db8::"), 32)),
        ('cidr("2001:db8::/32")', parse_cidr("2001:db8::/32")),
    ],
)
def test_typed_results(expr, want):
    assert run(expr) == want


_WRAP = "network address parse error during conversion from string: "


@pytest.mark.parametrize(
    "expr, message",
    [
        ('cidr("192.168.0.0/")', _WRAP * 2 + 'netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""'),
        ('cidr("2001:db8::/")', _WRAP * 2 + 'netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""'),
        ('cidr("10.0.0.0")', _WRAP * 2 + "netip.ParsePrefix(\"10.0.0.0\"): no '/'"),
        ('cidr("10.0.0.0/33")', _WRAP * 2 + 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range'),
        ('cidr("10.0.0.0/-1")', _WRAP * 2 + 'netip.ParsePrefix("10.0.0.0/-1"): bad bits after slash: "-1"'),
        ('cidr("10.0.0/8")', _WRAP * 2 + 'netip.ParsePrefix("10.0.0/8"): ParseAddr("10.0.0"): IPv4 address too short'),
        (
            'cidr("fe80::1%eth0/64")',
            _WRAP * 2 + 'netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix',
        ),
        ('cidr("::ffff:1.2.3.4/96")', _WRAP + 'IPv4-mapped IPv6 address "::ffff:1.2.3.4/96" is not allowed'),
        # The string overload of containsIP loses the parse error: Kubernetes answers "no such overload".
        ('cidr("10.0.0.0/8").containsIP("10.0.0")', "no such overload"),
        ('cidr("10.0.0.0/8").containsCIDR("10.0.0.0")', _WRAP * 2 + "netip.ParsePrefix(\"10.0.0.0\"): no '/'"),
    ],
)
def test_runtime_errors_are_exact(expr, message):
    assert error_of(expr) == message


def test_cost_of_contains():
    # two variable reads: 2; cidr(): ceil(10 * .1) = 1; containsCIDR on a /8 (1 byte): ceil(2 * .1) +
    # ceil(1 * .1) + 1, plus the string argument's parse ceil(11 * .1) = 2: 5 in all
    assert cost_of("cidr(a).containsCIDR(b)", a="10.0.0.0/8", b="10.1.0.0/16") == 8


@given(st.text(alphabet="0123456789abcdef:./ -", max_size=45))
def test_any_text_parses_or_fails_cleanly(text):
    try:
        prefix = parse_cidr(text)
    except CELEvalError:
        assert run("isCIDR(s)", s=text) is False
        return
    assert parse_cidr(str(prefix)) == prefix
    assert run("cidr(s).containsCIDR(cidr(s).masked())", s=text) is True


# Kubernetes' cost_test.go runtime costs: the base cidr('192.168.0.0/16') costs 2; here it is read from a
# variable (one more unit), and so is the argument when it is a string or parsed from one.
@pytest.mark.parametrize(
    "expr, arg, extra",
    [
        ("cidr(c).ip()", None, 1),
        ("cidr(c).prefixLength()", None, 1),
        ("cidr(c).masked()", None, 1),
        ("cidr(c).containsCIDR(cidr(a))", "192.0.0.0/30", 5),
        ("cidr(c).containsCIDR(a)", "192.168.0.0/16", 5),
        ("cidr(c).containsIP(ip(a))", "192.0.0.1", 2),
        ("cidr(c).containsIP(ip(a))", "192.169.0.1", 3),
        ("cidr(c).containsIP(a)", "192.169.0.1", 3),
    ],
)
def test_runtime_cost(expr, arg, extra):
    variables = {"c": "192.168.0.0/16"} if arg is None else {"c": "192.168.0.0/16", "a": arg}
    assert cost_of(expr, **variables) == 2 + extra + len(variables)
