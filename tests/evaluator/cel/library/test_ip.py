"""The Kubernetes IP library: netip parsing, Kubernetes' extra rejections, predicates, exact messages."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from evaluator.cel import CompileError, compile_program
from evaluator.cel.env import admission_env
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.ip import IP, AddrParseError, parse_addr, parse_ip
from evaluator.cel.library.support import go_quote
from tests.evaluator.cel.library.helpers import cost_of, error_of, run


# From Kubernetes' ip_test.go and the IP section of the CRD validation test.
@pytest.mark.parametrize(
    "expr, want",
    [
        ('isIP("192.168.0.1")', True),
        ('isIP("192.168.0.1.0")', False),
        ('ip.isCanonical("127.0.0.1")', True),
        ('ip("192.168.0.1").family()', 4),
        ('ip("0.0.0.0").isUnspecified()', True),
        ('ip("127.0.0.1").isUnspecified()', False),
        ('ip("127.0.0.1").isLoopback()', True),
        ('ip("1.2.3.4").isLoopback()', False),
        ('ip("224.0.0.1").isLinkLocalMulticast()', True),
        ('ip("224.0.1.1").isLinkLocalMulticast()', False),
        ('ip("169.254.169.254").isLinkLocalUnicast()', True),
        ('ip("192.168.0.1").isLinkLocalUnicast()', False),
        ('ip("192.168.0.1").isGlobalUnicast()', True),
        ('ip("255.255.255.255").isGlobalUnicast()', False),
        ('ip("0.0.0.0").isGlobalUnicast()', False),
        ('isIP("2001:db8::68")', True),
        ('isIP("2001:db8:::68")', False),
        ('ip.isCanonical("2001:db8::68")', True),
        ('ip.isCanonical("2001:DB8::68")', False),
        ('ip.isCanonical("2001:db8::0:0:0:abcd")', False),
        ('ip("2001:db8::68").family()', 6),
        ('ip("::").isUnspecified()', True),
        ('ip("::1").isUnspecified()', False),
        ('ip("::1").isLoopback()', True),
        ('ip("2001:db8::abcd").isLoopback()', False),
        ('ip("ff02::1").isLinkLocalMulticast()', True),
        ('ip("fd00::1").isLinkLocalMulticast()', False),
        ('ip("fe80::1").isLinkLocalUnicast()', True),
        ('ip("fd80::1").isLinkLocalUnicast()', False),
        ('ip("2001:db8::abcd").isGlobalUnicast()', True),
        ('ip("ff00::1").isGlobalUnicast()', False),
        ('ip("::").isGlobalUnicast()', False),
        ('string(ip("192.168.0.1"))', "192.168.0.1"),
        ('string(ip("2001:0db8:0:0:1:0:0:1"))', "2001:db8::1:0:0:1"),
        ('string(ip("1:0:0:2:0:0:0:3"))', "1:0:0:2::3"),
        ('string(ip("1:0:2:3:4:5:6:7"))', "1:0:2:3:4:5:6:7"),
        ('string(ip("::1.2.3.4"))', "::102:304"),
        ('type(ip("192.168.0.1")) == net.IP', True),
        ('ip("192.168.0.1") == ip("192.168.0.1")', True),
        ('ip("::1") == ip("::2")', False),
        ('isIP("::ffff:1.2.3.4")', False),
        ('isIP("fe80::1%eth0")', False),
        ('isIP("010.1.1.1")', False),
    ],
)
def test_expressions(expr, want):
    got = run(expr)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "expr, message",
    [
        (
            'ip("192.168.0.1.0")',
            'IP Address "192.168.0.1.0" parse error during conversion from string: '
            'ParseAddr("192.168.0.1.0"): IPv4 address too long',
        ),
        (
            'ip.isCanonical("127.0.0.1.0")',
            'IP Address "127.0.0.1.0" parse error during conversion from string: '
            'ParseAddr("127.0.0.1.0"): IPv4 address too long',
        ),
        (
            'ip("2001:db8:::68")',
            'IP Address "2001:db8:::68" parse error during conversion from string: '
            'ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit '
            '(at ":68")',
        ),
        ('ip("::ffff:1.2.3.4")', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
        ('ip("fe80::1%eth0")', 'IP address "fe80::1%eth0" with zone value is not allowed'),
    ],
)
def test_runtime_errors_are_exact(expr, message):
    assert error_of(expr) == message


def test_ip_rejects_a_cidr_at_compile_time():
    with pytest.raises(CompileError) as err:
        compile_program('isIP(cidr("192.168.0.0/24"))', env=admission_env(()))
    assert "found no matching overload for 'isIP' applied to '(net.CIDR)'" in err.value.message


def test_value_is_an_ip():
    assert run('ip("192.168.0.1")') == parse_addr("192.168.0.1")
    assert run('ip("2001:db8::68")') == IP(0x20010DB8 << 96 | 0x68, 128)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "unable to parse IP"),
        ("abc", "unable to parse IP"),
        ("%eth0", "missing IPv6 address"),
        ("1.2.3", "IPv4 address too short"),
        ("1.2.3.4.5", "IPv4 address too long"),
        ("1.2.3.256", "IPv4 field has value >255"),
        ("1.2.3.04", "IPv4 field has octet with leading zero"),
        ("1..2.3", 'IPv4 field must have at least one digit (at ".2.3")'),
        ("1.2.3.", 'IPv4 field must have at least one digit (at ".")'),
        ("1.2.3.x", 'unexpected character (at "x")'),
        ("fe80::1%", "zone must be a non-empty string"),
        ("12345::", 'each group must have 4 or less digits (at "12345::")'),
        ("1:2:3:4:5:6:7", "address string too short"),
        ("1:2:3:4:5:6:7:8:9", 'trailing garbage after address (at "9")'),
        ("1::2::3", 'multiple :: in address (at ":3")'),
        ("1:2:3:4:5:6:7::8", "the :: must expand to at least one field of zeros"),
        ("1:2:3:4:1.2.3.4", 'embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")'),
        ("1:2x", 'unexpected character, want colon (at "x")'),
        ("1:", 'colon must be followed by more characters (at ":")'),
        ("::1.2.3.400", "IPv4 field has value >255"),
    ],
)
def test_netip_messages(text, message):
    with pytest.raises(AddrParseError) as err:
        parse_addr(text)
    assert str(err.value) == f"ParseAddr({go_quote(text)}): {message}"


def test_parse_ip_raises_cel_errors():
    with pytest.raises(CELEvalError):
        parse_ip("nope")
    assert str(parse_ip("fe80::1")) == "fe80::1"


def test_go_quote():
    assert go_quote('a"b\\c\n\x01é') == '"a\\"b\\\\c\\n\\x01é"'
    assert go_quote("\u00a0") == '"\\u00a0"'


def test_cost_counts_the_string():
    assert cost_of("ip.isCanonical(a)", a="2001:db8::68") == 1 + 3  # the variable, then ceil(12 * 0.2)


@given(st.text(alphabet="0123456789abcdefABCDEF:.%/ x", max_size=45))
def test_any_text_parses_or_fails_cleanly(text):
    try:
        ip = parse_ip(text)
    except CELEvalError:
        assert run("isIP(s)", s=text) is False
        return
    assert run("isIP(s)", s=text) is True
    assert parse_ip(str(ip)) == ip  # the canonical form parses back to the same address


# Kubernetes' cost_test.go runtime costs, with the literal moved into a variable (one more unit to read it).
@pytest.mark.parametrize(
    "expr, s, cost",
    [
        ("ip(s)", "192.168.0.1", 2 + 1),
        ("ip(s)", "2001:db8:3333:4444:5555:6666:7777:8888", 4 + 1),
        ("ip(s).family()", "192.168.0.1", 3 + 1),
        ("ip(s).isGlobalUnicast()", "2001:db8:3333:4444:5555:6666:7777:8888", 5 + 1),
        ("ip.isCanonical(s)", "192.168.0.1", 3 + 1),
        ("ip.isCanonical(s)", "2001:db8:3333:4444:5555:6666:7777:8888", 8 + 1),
        ("ip.isCanonical(s)", "2001:db8::abcd", 3 + 1),
    ],
)
def test_runtime_cost(expr, s, cost):
    assert cost_of(expr, s=s) == cost
