"""The Kubernetes URL library on the port of Go's net/url (ParseRequestURI validates, Parse builds)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from evaluator.cel import CELError
from evaluator.cel.library.urls import URLError, parse_request_uri, parse_url
from tests.evaluator.cel.library.helpers import cost_of, error_of, run

FULL = "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor"


# From the "URL parsing" section of the CRD validation test and the library's documented examples.
@pytest.mark.parametrize(
    "expr",
    [
        "url('/path').getScheme() == ''",
        "url('https://example.com/').getScheme() == 'https'",
        "url('HTTPS://example.com/').getScheme() == 'https'",
        "url('https://example.com:80/').getHost() == 'example.com:80'",
        "url('https://example.com/').getHost() == 'example.com'",
        "url('https://[::1]:80/').getHost() == '[::1]:80'",
        "url('https://[::1]/').getHost() == '[::1]'",
        "url('/path').getHost() == ''",
        "url('https://example.com:80/').getHostname() == 'example.com'",
        "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
        "url('https://[::1]/').getHostname() == '::1'",
        "url('https://[::1]:80/').getHostname() == '::1'",
        "url('/path').getHostname() == ''",
        "url('https://example.com:80/').getPort() == '80'",
        "url('https://example.com/').getPort() == ''",
        "url('/path').getPort() == ''",
        "url('https://example.com/path').getEscapedPath() == '/path'",
        "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
        "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
        "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
        "url('https://example.com').getEscapedPath() == ''",
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
        "{ 'key with spaces': ['value with spaces']}",
        "url('https://example.com/path?').getQuery() == {}",
        "url('https://example.com/path').getQuery() == {}",
        "url('https://example.com/?a=1;b=2&c=%zz&d=x+y&e').getQuery() == {'d': ['x y'], 'e': ['']}",
        "url('https:://kubernetes.io/').getHostname() != 'test'",
        "url(self.url).getScheme() == 'https'",
        "url(self.url).getHost() == 'kubernetes.io:80'",
        "url(self.url).getHostname() == 'kubernetes.io'",
        "url(self.url).getPort() == '80'",
        "url(self.url).getEscapedPath() == '/docs/home'",
        "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
        "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
        "isURL('/path') == true",
        "isURL('/absolute-path')",
        "isURL('https://a:b:c/') == false",
        "url('ftp://a:b:21/').getPort() == '21'",  # other schemes keep the last colon as the separator
        "url('https://[fe80::1%25en0]:8080/').getHostname() == 'fe80::1%en0'",
        "isURL('../relative-path') == false",
        "isURL('') == false",
        "isURL('*')",
        "isURL('https://example.com/\\t') == false",
        "url('https://a/b') == url('https://a/b')",
        "url('https://a/b') != url('https://a/c')",
        "type(url('/a')) == kubernetes.URL",
    ],
)
def test_expressions(expr):
    assert run(expr, self={"url": FULL}) is True


@pytest.mark.parametrize(
    "expr, message",
    [
        ("url('../relative-path')", 'parse "../relative-path": invalid URI for request'),
        # Go 1.26: an http(s) host may hold one colon only; brackets must hold an IPv6 literal.
        ("url('https://a:b:c/')", 'parse "https://a:b:c/": invalid port ":b:c" after host'),
        ("url('https://[1.2.3.4]/')", 'parse "https://[1.2.3.4]/": invalid IP-literal'),
        ("url('https://x[::1]/')", 'parse "https://x[::1]/": invalid IP-literal'),
        ("url('https://[zz]/')", 'parse "https://[zz]/": invalid host: ParseAddr("zz"): unable to parse IP'),
        ("url('')", 'parse "": empty url'),
        ("url(':foo')", 'parse ":foo": missing protocol scheme'),
        ("url('http://[::1/')", "parse \"http://[::1/\": missing ']' in host"),
        ("url('http://a b/')", 'parse "http://a b/": invalid character " " in host name'),
        ("url('http://x/%zz')", 'parse "http://x/%zz": invalid URL escape "%zz"'),
        ("url('http://us er@x/')", 'parse "http://us er@x/": net/url: invalid userinfo'),
        ("url('http://x/\\n')", 'parse "http://x/\\n": net/url: invalid control character in URL'),
    ],
)
def test_runtime_errors_are_exact(expr, message):
    assert error_of(expr) == "URL parse error during conversion from string: " + message


@pytest.mark.parametrize(
    "text, string",
    [
        (FULL, FULL),
        ("https://example.com/with space/", "https://example.com/with%20space/"),
        ("/path?", "/path?"),
        ("http:/path", "http:/path"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
        ("https://x/a#b c", "https://x/a#b%20c"),
    ],
)
def test_url_string_form(text, string):
    assert str(parse_url(text)) == string


def test_fragment_is_not_part_of_the_path():
    request_form = parse_request_uri("https://x/a#frag")
    parsed = parse_url("https://x/a#frag")
    assert request_form.path == b"/a#frag" and parsed.path == b"/a" and parsed.fragment == b"frag"


def test_errors_are_url_errors():
    with pytest.raises(URLError):
        parse_request_uri("rel/path")


@given(st.text(alphabet="ab:/?#[]@%2F5 &=+;.\u00e9", max_size=30))
def test_any_text_parses_or_fails_cleanly(text):
    try:
        parse_request_uri(text)
    except URLError:
        assert run("isURL(s)", s=text) is False
        return
    assert run("isURL(s)", s=text) is True
    try:
        u = parse_url(text)
    except URLError:
        # Kubernetes parses again with url.Parse, which can still reject the fragment (e.g. "a:#%").
        with pytest.raises(CELError, match="URL parse error during conversion from string"):
            run("url(s)", s=text)
        return
    assert isinstance(run("url(s).getQuery()", s=text), dict)
    assert parse_url(str(u)) == u  # Go's String form parses back to an equal URL


# Kubernetes' cost_test.go runtime costs. Every literal is read from a variable here (one unit each), since
# the engine folds calls on constants.
@pytest.mark.parametrize(
    "expr, b, cost, reads",
    [
        ("url(a).getScheme()", "", 4, 1),
        ("url(a).getQuery()", "", 4, 1),
        ("url(a) == url(b)", "https:://kubernetes.io/", 7, 2),
        ("url(a) == url(b)", "http://x.b", 5, 2),
    ],
)
def test_runtime_cost(expr, b, cost, reads):
    assert cost_of(expr, a="https:://kubernetes.io/", b=b) == cost + reads
