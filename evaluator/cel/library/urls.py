"""Kubernetes' URL library (`url`, `isURL`, `getScheme`, `getHost`, `getHostname`, `getPort`,
`getEscapedPath`, `getQuery`), on a port of the parts of Go's `net/url` that Kubernetes uses.

Python's urllib differs from Go in what it accepts (it never rejects a URL), in how it splits the host
and the port, and in its escaping rules, so the Go parser is ported instead: `ParseRequestURI` decides
validity, `Parse` builds the value, and components are escaped and unescaped byte by byte as Go does.
The port follows the newest Go (1.26): IP literals in brackets are checked with netip, and http(s) hosts
may not contain a second colon (go.dev/issue/75223, 78077).
"""

from __future__ import annotations

import math
from typing import Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.ip import AddrParseError, parse_addr
from evaluator.cel.library.support import go_quote, parses
from evaluator.cel.registry import function

__all__ = ["URL", "parse_request_uri", "parse_url", "URLError"]

_ENCODE_PATH, _ENCODE_PATH_SEGMENT, _ENCODE_HOST, _ENCODE_ZONE = 1, 2, 3, 4
_ENCODE_USER_PASSWORD, _ENCODE_QUERY_COMPONENT, _ENCODE_FRAGMENT = 5, 6, 7
_HEX = b"0123456789abcdefABCDEF"
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class URLError(ValueError):
    """A Go url error; str() is Go's error text."""


def _should_escape(c: int, mode: int) -> bool:
    if c in _ALNUM:
        return False
    if mode in (_ENCODE_HOST, _ENCODE_ZONE) and c in b"!$&'()*+,;=:[]<>\"":
        return False
    if c in b"-_.~":
        return False
    if c in b"$&+,/:;=?@":
        if mode == _ENCODE_PATH:
            return c == ord("?")
        if mode == _ENCODE_PATH_SEGMENT:
            return c in b"/;,?"
        if mode == _ENCODE_USER_PASSWORD:
            return c in b"@/?:"
        if mode == _ENCODE_QUERY_COMPONENT:
            return True
        if mode == _ENCODE_FRAGMENT:
            return False
    if mode == _ENCODE_FRAGMENT and c in b"!()*":
        return False
    return True


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def _unescape(s: bytes, mode: int) -> bytes:
    """Go's unescape: the whole text is checked first, so an error names the first bad escape."""
    if not _has_escapes(s, mode):
        return s
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == 0x25:
            out.append(int(s[i + 1 : i + 3], 16))
            i += 3
            continue
        out.append(0x20 if c == 0x2B and mode == _ENCODE_QUERY_COMPONENT else c)
        i += 1
    return bytes(out)


def _has_escapes(s: bytes, mode: int) -> bool:
    """Whether there is anything to decode (a `%` escape, or a `+` in a query component); raises on a bad one."""
    n, has_plus, i = 0, False, 0
    while i < len(s):
        c = s[i]
        if c == 0x25:  # '%'
            n += 1
            _check_escape(s, i, mode)
            i += 3
        elif c == 0x2B:  # '+'
            has_plus = mode == _ENCODE_QUERY_COMPONENT
            i += 1
        else:
            if mode in (_ENCODE_HOST, _ENCODE_ZONE) and c < 0x80 and _should_escape(c, mode):
                raise URLError(f"invalid character {go_quote(chr(c))} in host name")
            i += 1
    return n > 0 or has_plus


def _check_escape(s: bytes, i: int, mode: int) -> None:
    """The `%` escape at `i`: two hex digits, and in hosts only what Go lets a host escape."""
    escape = s[i : i + 3]
    if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
        raise URLError(f"invalid URL escape {go_quote(_text(escape))}")
    if mode == _ENCODE_HOST and int(chr(s[i + 1]), 16) < 8 and escape != b"%25":
        raise URLError(f"invalid URL escape {go_quote(_text(escape))}")
    if mode == _ENCODE_ZONE:
        v = int(s[i + 1 : i + 3], 16)
        if escape != b"%25" and v != 0x20 and _should_escape(v, _ENCODE_HOST):
            raise URLError(f"invalid URL escape {go_quote(_text(escape))}")


def _escape(s: bytes, mode: int) -> bytes:
    out = bytearray()
    for c in s:
        if c == 0x20 and mode == _ENCODE_QUERY_COMPONENT:
            out.append(0x2B)
        elif _should_escape(c, mode):
            out += b"%" + f"{c:02X}".encode()
        else:
            out.append(c)
    return bytes(out)


def _valid_encoded(s: bytes, mode: int) -> bool:
    for c in s:
        if c in b"!$&'()*+,;=:@[]%":
            continue
        if _should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: bytes) -> bool:
    if not port:
        return True
    return port[:1] == b":" and all(0x30 <= c <= 0x39 for c in port[1:])


def _valid_userinfo(s: bytes) -> bool:
    return all(c in _ALNUM or c in b"-._:~!$&'()*+,;=%@" for c in s)


def _encodes(raw: bytes, decoded: bytes, mode: int) -> bool:
    """Whether the raw form kept at parsing is still a valid encoding of the (decoded) value, so that Go's
    EscapedPath / EscapedFragment give it back as it was written."""
    if not raw or not _valid_encoded(raw, mode):
        return False
    try:
        return _unescape(raw, mode) == decoded
    except URLError:
        return False


class URL:
    """Go's `url.URL` (the fields Kubernetes reads), stored as bytes like Go strings."""

    cel_type_name = "kubernetes.URL"
    __slots__ = (
        "scheme",
        "opaque",
        "user",
        "host",
        "path",
        "raw_path",
        "omit_host",
        "force_query",
        "raw_query",
        "fragment",
        "raw_fragment",
    )

    def __init__(self) -> None:
        self.scheme = self.opaque = self.host = self.path = self.raw_path = b""
        self.raw_query = self.fragment = self.raw_fragment = b""
        self.user: tuple[bytes, bytes | None] | None = None  # (username, password or None)
        self.omit_host = self.force_query = False

    def set_path(self, p: bytes) -> None:
        self.path = _unescape(p, _ENCODE_PATH)
        self.raw_path = b"" if _escape(self.path, _ENCODE_PATH) == p else p

    def set_fragment(self, f: bytes) -> None:
        self.fragment = _unescape(f, _ENCODE_FRAGMENT)
        self.raw_fragment = b"" if _escape(self.fragment, _ENCODE_FRAGMENT) == f else f

    def escaped_path(self) -> bytes:
        if _encodes(self.raw_path, self.path, _ENCODE_PATH):
            return self.raw_path
        if self.path == b"*":
            return b"*"
        return _escape(self.path, _ENCODE_PATH)

    def escaped_fragment(self) -> bytes:
        if _encodes(self.raw_fragment, self.fragment, _ENCODE_FRAGMENT):
            return self.raw_fragment
        return _escape(self.fragment, _ENCODE_FRAGMENT)

    def split_host_port(self) -> tuple[bytes, bytes]:
        host, port = self.host, b""
        colon = host.rfind(b":")
        if colon != -1 and _valid_optional_port(host[colon:]):
            host, port = host[:colon], host[colon + 1 :]
        if host.startswith(b"[") and host.endswith(b"]"):
            host = host[1:-1]
        return host, port

    def query(self) -> dict[str, list[str]]:
        """`URL.Query()`: ParseQuery, silently dropping malformed pairs."""
        result: dict[str, list[str]] = {}
        for key in self.raw_query.split(b"&") if self.raw_query else []:
            if b";" in key or not key:
                continue
            key, _, value = key.partition(b"=")
            try:
                k, v = _unescape(key, _ENCODE_QUERY_COMPONENT), _unescape(value, _ENCODE_QUERY_COMPONENT)
            except URLError:
                continue
            result.setdefault(_cel_text(k), []).append(_cel_text(v))
        return result

    def to_bytes(self) -> bytes:
        """Go's `URL.String()`."""
        buf = bytearray()
        if self.scheme:
            buf += self.scheme + b":"
        if self.opaque:
            buf += self.opaque
        else:
            buf += self._authority()
            path = self.escaped_path()
            if path and path[:1] != b"/" and self.host:
                buf += b"/"
            if not buf and b":" in path.split(b"/", 1)[0]:
                buf += b"./"
            buf += path
        if self.force_query or self.raw_query:
            buf += b"?" + self.raw_query
        if self.fragment:
            buf += b"#" + self.escaped_fragment()
        return bytes(buf)

    def _authority(self) -> bytes:
        """`//user:password@host` as String writes it: nothing without a scheme, host or user, nor when the
        host was omitted (`scheme:/path`)."""
        if not (self.scheme or self.host or self.user is not None):
            return b""
        if self.omit_host and not self.host and self.user is None:
            return b""
        buf = bytearray()
        if self.host or self.path or self.user is not None:
            buf += b"//"
        if self.user is not None:
            name, password = self.user
            buf += _escape(name, _ENCODE_USER_PASSWORD)
            if password is not None:
                buf += b":" + _escape(password, _ENCODE_USER_PASSWORD)
            buf += b"@"
        if self.host:
            buf += _escape(self.host, _ENCODE_HOST)
        return bytes(buf)

    def __eq__(self, other) -> bool:
        return type(other) is URL and other.to_bytes() == self.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __str__(self) -> str:
        return _cel_text(self.to_bytes())

    def __repr__(self) -> str:
        return f"url({str(self)!r})"


def _go_bytes(s: str) -> bytes:
    """The bytes Go would hold for a string (lone surrogates from JSON escapes kept as their UTF-8 form)."""
    return s.encode("utf-8", "surrogatepass")


def _cel_text(b: bytes) -> str:
    """Bytes that Go would hold in a string, as a CEL string (invalid UTF-8 becomes U+FFFD)."""
    return b.decode("utf-8", "replace")


def _get_scheme(raw: bytes) -> tuple[bytes, bytes]:
    for i, c in enumerate(raw):
        if 0x61 <= c <= 0x7A or 0x41 <= c <= 0x5A:
            continue
        if 0x30 <= c <= 0x39 or c in b"+-.":
            if i == 0:
                return b"", raw
            continue
        if c == 0x3A:
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return b"", raw
    return b"", raw


def _parse_host(scheme: bytes, host: bytes) -> bytes:
    """Go's parseHost as of the newest Go: bracketed hosts must be IPv6 literals, and http(s) hosts may
    have only one colon (other schemes keep the last colon as the port separator)."""
    bracket = host.rfind(b"[")
    if bracket > 0:
        raise URLError("invalid IP-literal")
    if bracket == 0:
        close = host.rfind(b"]")
        if close < 0:
            raise URLError("missing ']' in host")
        colon_port = host[close + 1 :]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(_text(colon_port))} after host")
        colon_port = _unescape(colon_port, _ENCODE_HOST)
        hostname = host[1:close]
        zone = hostname.find(b"%25")
        if zone >= 0:
            hostname = _unescape(hostname[:zone], _ENCODE_HOST) + _unescape(hostname[zone:], _ENCODE_ZONE)
        else:
            hostname = _unescape(hostname, _ENCODE_HOST)
        try:
            addr = parse_addr(_text(hostname))
        except AddrParseError as err:
            raise URLError(f"invalid host: {err}") from None
        if addr.is4:
            raise URLError("invalid IP-literal")
        return b"[" + hostname + b"]" + colon_port
    i = host.find(b":")
    if i != -1:
        if host.rfind(b":") != i and scheme not in (b"http", b"https"):
            i = host.rfind(b":")
        if not _valid_optional_port(host[i:]):
            raise URLError(f"invalid port {go_quote(_text(host[i:]))} after host")
    return _unescape(host, _ENCODE_HOST)


def _parse_authority(scheme: bytes, authority: bytes) -> tuple[tuple[bytes, bytes | None] | None, bytes]:
    i = authority.rfind(b"@")
    host = _parse_host(scheme, authority[i + 1 :] if i >= 0 else authority)
    if i < 0:
        return None, host
    userinfo = authority[:i]
    if not _valid_userinfo(userinfo):
        raise URLError("net/url: invalid userinfo")
    if b":" not in userinfo:
        return (_unescape(userinfo, _ENCODE_USER_PASSWORD), None), host
    name, _, password = userinfo.partition(b":")
    return (_unescape(name, _ENCODE_USER_PASSWORD), _unescape(password, _ENCODE_USER_PASSWORD)), host


def _parse(raw: bytes, via_request: bool) -> URL:
    if any(c < 0x20 or c == 0x7F for c in raw):
        raise URLError("net/url: invalid control character in URL")
    if not raw and via_request:
        raise URLError("empty url")
    url = URL()
    if raw == b"*":
        url.path = b"*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    rest = _cut_query(url, rest)
    if not rest.startswith(b"/"):
        if url.scheme:
            url.opaque = rest
            return url
        if via_request:
            raise URLError("invalid URI for request")
        if b":" in rest.split(b"/", 1)[0]:
            raise URLError("first path segment in URL cannot contain colon")
    if (url.scheme or (not via_request and not rest.startswith(b"///"))) and rest.startswith(b"//"):
        rest = _cut_authority(url, rest[2:])
    elif url.scheme and rest.startswith(b"/"):
        url.omit_host = True
    url.set_path(rest)
    return url


def _cut_query(url: URL, rest: bytes) -> bytes:
    """Sets the query (a lone trailing `?` is ForceQuery) and returns what stands before it."""
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        url.force_query = True
        return rest[:-1]
    rest, _, url.raw_query = rest.partition(b"?")
    return rest


def _cut_authority(url: URL, rest: bytes) -> bytes:
    """Sets the user and host from the authority that starts `rest` (after `//`) and returns the path."""
    authority, slash, path = rest.partition(b"/")
    url.user, url.host = _parse_authority(url.scheme, authority)
    return slash + path


def _go_error(raw: bytes, err: URLError) -> URLError:
    return URLError(f"parse {go_quote(_text(raw))}: {err}")


def parse_request_uri(raw: str) -> URL:
    """Go's `url.ParseRequestURI`: an absolute URI or an absolute path."""
    data = _go_bytes(raw)
    try:
        return _parse(data, True)
    except URLError as err:
        raise _go_error(data, err) from None


def parse_url(raw: str) -> URL:
    """Go's `url.Parse`, fragment included."""
    data = _go_bytes(raw)
    head, sep, frag = data.partition(b"#")
    try:
        url = _parse(head, False)
    except URLError as err:
        raise _go_error(head, err) from None
    if frag:
        try:
            url.set_fragment(frag)
        except URLError as err:
            raise _go_error(data, err) from None
    return url


# --- CEL functions -------------------------------------------------------------------------------


def _url_cost(args: tuple, _result) -> int:
    return math.ceil(len(args[0]) * 0.1)


@function("url(string) -> kubernetes.URL", cost=_url_cost)
def string_to_url(s: str) -> URL:
    try:
        parse_request_uri(s)
        return parse_url(s)
    except URLError as err:
        raise CELEvalError(f"URL parse error during conversion from string: {err}") from None


@function("isURL(string) -> bool")
def is_url(s: str) -> bool:
    return parses(parse_request_uri, URLError, s)


def _text_getter(part: Callable[[URL], bytes]) -> Callable[[URL], str]:
    return lambda u: _cel_text(part(u))


for _name, _part in {
    "getScheme": lambda u: u.scheme,
    "getHost": lambda u: u.host,
    "getHostname": lambda u: u.split_host_port()[0],
    "getPort": lambda u: u.split_host_port()[1],
    "getEscapedPath": URL.escaped_path,
}.items():
    function(f"kubernetes.URL.{_name}() -> string", cost=1)(_text_getter(_part))
del _name, _part


@function("kubernetes.URL.getQuery() -> map(string, list(string))", cost=1)
def get_query(u: URL) -> dict:
    return u.query()
