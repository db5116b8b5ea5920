"""Kubernetes' IP library (`ip`, `isIP`, `ip.isCanonical`, family and range predicates).

Addresses are parsed by a port of Go's `net/netip.ParseAddr`, not Python's `ipaddress`: the two differ in
what they accept (netip rejects leading zeros in IPv4 octets and groups of more than four hex digits,
ipaddress rejects zones differently) and Kubernetes' error texts quote netip's messages word for word.
Kubernetes then rejects zones and IPv4-mapped IPv6 addresses on top of netip.
"""

from __future__ import annotations

import math
from typing import Callable

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.support import actual_size, declare_parser, go_quote
from evaluator.cel.registry import function

__all__ = ["IP", "parse_addr", "parse_ip", "AddrParseError"]


class AddrParseError(ValueError):
    """netip's parseAddrError: `ParseAddr("in"): msg (at "at")`."""

    def __init__(self, text: str, msg: str, at: str = ""):
        self.text, self.msg, self.at = text, msg, at
        super().__init__(str(self))

    def __str__(self) -> str:
        tail = f" (at {go_quote(self.at)})" if self.at else ""
        return f"ParseAddr({go_quote(self.text)}): {self.msg}{tail}"


class IP:
    """A `netip.Addr`: a 32- or 128-bit integer, the family, and an IPv6 zone."""

    cel_type_name = "net.IP"
    __slots__ = ("value", "bits", "zone")

    def __init__(self, value: int, bits: int, zone: str = ""):
        self.value, self.bits, self.zone = value, bits, zone

    @property
    def is4(self) -> bool:
        return self.bits == 32

    @property
    def is4in6(self) -> bool:
        return self.bits == 128 and self.value >> 32 == 0xFFFF

    def unmap(self) -> "IP":
        return IP(self.value & 0xFFFFFFFF, 32) if self.is4in6 else self

    def cel_size(self) -> int:
        return self.bits // 8

    def __eq__(self, other) -> bool:
        return type(other) is IP and (other.value, other.bits, other.zone) == (self.value, self.bits, self.zone)

    def __hash__(self) -> int:
        return hash((self.value, self.bits, self.zone))

    def __repr__(self) -> str:
        return f"ip({str(self)!r})"

    def __str__(self) -> str:
        """netip's `Addr.String`: dotted quad, RFC 5952 IPv6, `::ffff:a.b.c.d`, `%zone`."""
        if self.is4:
            return _str4(self.value)
        zone = f"%{self.zone}" if self.zone else ""
        if self.is4in6:
            return "::ffff:" + _str4(self.value & 0xFFFFFFFF) + zone
        return _str6(self.value) + zone


def _str4(v: int) -> str:
    return ".".join(str((v >> s) & 0xFF) for s in (24, 16, 8, 0))


def _str6(v: int) -> str:
    groups = [(v >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
    best_start, best_len = -1, 1  # runs of at least two zero groups; the first longest wins
    i = 0
    while i < 8:
        j = i
        while j < 8 and groups[j] == 0:
            j += 1
        if j - i > best_len:
            best_start, best_len = i, j - i
        i = j + 1 if j == i else j
    if best_start < 0:
        return ":".join(f"{g:x}" for g in groups)
    head = ":".join(f"{g:x}" for g in groups[:best_start])
    tail = ":".join(f"{g:x}" for g in groups[best_start + best_len :])
    return f"{head}::{tail}"


def _parse_ipv4_fields(text: str, start: int, end: int) -> list[int]:
    s = text[start:end]
    fields: list[int] = []
    val = dig_len = 0
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if dig_len == 1 and val == 0:
                raise AddrParseError(text, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(ch) - 48
            dig_len += 1
            if val > 255:
                raise AddrParseError(text, "IPv4 field has value >255")
        elif ch == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise AddrParseError(text, "IPv4 field must have at least one digit", s[i:])
            if len(fields) == 3:
                raise AddrParseError(text, "IPv4 address too long")
            fields.append(val)
            val = dig_len = 0
        else:
            raise AddrParseError(text, "unexpected character", s[i:])
    if len(fields) < 3:
        raise AddrParseError(text, "IPv4 address too short")
    fields.append(val)
    return fields


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _parse_ipv6(text: str) -> IP:
    """netip's parseIPv6, field by field; every error quotes the rest of the text where it stopped."""
    s, sep, zone = text.partition("%")
    if sep and not zone:
        raise AddrParseError(text, "zone must be a non-empty string")
    ip = [0] * 16
    ellipsis = -1
    if s[:2] == "::":
        ellipsis, s = 0, s[2:]
        if not s:
            return IP(0, 128, zone)
    i = 0
    while i < 16:
        acc, off = _hex_field(text, s)
        if off < len(s) and s[off] == ".":
            _check_embedded_ipv4(text, s, i, ellipsis)
            end = len(text) - (len(zone) + 1 if zone else 0)
            ip[i : i + 4] = _parse_ipv4_fields(text, end - len(s), end)
            s, i = "", i + 4
            break
        ip[i], ip[i + 1] = acc >> 8, acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        s, ellipsis = _after_field(text, s, i, ellipsis)
        if not s:  # the address ends in "::"
            break
    if s:
        raise AddrParseError(text, "trailing garbage after address", s)
    return IP(int.from_bytes(bytes(_expand_ellipsis(text, ip, i, ellipsis)), "big"), 128, zone)


def _hex_field(text: str, s: str) -> tuple[int, int]:
    """The value of the hex field that starts `s`, and its length."""
    off = acc = 0
    while off < len(s) and s[off] in _HEX_DIGITS:
        acc = (acc << 4) + int(s[off], 16)
        if off > 3:
            raise AddrParseError(text, "each group must have 4 or less digits", s)
        if acc > 0xFFFF:
            raise AddrParseError(text, "IPv6 field has value >=2^16", s)
        off += 1
    if off == 0:
        raise AddrParseError(text, "each colon-separated field must have at least one digit", s)
    return acc, off


def _check_embedded_ipv4(text: str, s: str, i: int, ellipsis: int) -> None:
    if ellipsis < 0 and i != 12:
        raise AddrParseError(text, "embedded IPv4 address must replace the final 2 fields of the address", s)
    if i + 4 > 16:
        raise AddrParseError(text, "too many hex fields to fit an embedded IPv4 at the end of the address", s)


def _after_field(text: str, s: str, i: int, ellipsis: int) -> tuple[str, int]:
    """Past the colon after a field: the rest, and where the `::` stands (i when this colon begins it)."""
    if s[0] != ":":
        raise AddrParseError(text, "unexpected character, want colon", s)
    if len(s) == 1:
        raise AddrParseError(text, "colon must be followed by more characters", s)
    s = s[1:]
    if s[0] != ":":
        return s, ellipsis
    if ellipsis >= 0:
        raise AddrParseError(text, "multiple :: in address", s)
    return s[1:], i


def _expand_ellipsis(text: str, ip: list[int], i: int, ellipsis: int) -> list[int]:
    """The 16 bytes with the `::` filled with zeros; `i` bytes were read."""
    if i < 16:
        if ellipsis < 0:
            raise AddrParseError(text, "address string too short")
        return ip[:ellipsis] + [0] * (16 - i) + ip[ellipsis:i]
    if ellipsis >= 0:
        raise AddrParseError(text, "the :: must expand to at least one field of zeros")
    return ip


def parse_addr(text: str) -> IP:
    """Go's `netip.ParseAddr`; raises AddrParseError with netip's message."""
    for ch in text:
        if ch == ".":
            f = _parse_ipv4_fields(text, 0, len(text))
            return IP((f[0] << 24) | (f[1] << 16) | (f[2] << 8) | f[3], 32)
        if ch == ":":
            return _parse_ipv6(text)
        if ch == "%":
            raise AddrParseError(text, "missing IPv6 address")
    raise AddrParseError(text, "unable to parse IP")


def parse_ip(raw: str) -> IP:
    """Kubernetes' `parseIPAddr`: netip plus no zones and no IPv4-mapped IPv6. Raises CELEvalError."""
    try:
        addr = parse_addr(raw)
    except AddrParseError as err:
        raise CELEvalError(f"IP Address {go_quote(raw)} parse error during conversion from string: {err}") from None
    if addr.zone:
        raise CELEvalError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if addr.is4in6:
        raise CELEvalError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr


# --- CEL functions -------------------------------------------------------------------------------


declare_parser("ip", "isIP", "net.IP", parse_ip)


@function("ip.isCanonical(string) -> bool", cost=lambda args, _r: math.ceil(actual_size(args[0]) * 2 * 0.1))
def ip_is_canonical(s: str) -> bool:
    return str(parse_ip(s)) == s


@function("string(net.IP) -> string")
def ip_to_string(ip: IP) -> str:
    return str(ip)


@function("net.IP.family() -> int", cost=1)
def family(ip: IP) -> int:
    return 4 if ip.is4 else 6


@function("net.IP.isUnspecified() -> bool", cost=1)
def is_unspecified(ip: IP) -> bool:
    return ip.value == 0 and not ip.zone


def _in_range(v4: tuple[int, int, int], v6: tuple[int, int, int]) -> Callable[[IP], bool]:
    """netip's range tests, each (shift, mask, bits) that the address's high bits must show in its family;
    an IPv4-mapped IPv6 address answers as its IPv4 address."""

    def test(ip: IP) -> bool:
        ip = ip.unmap()
        shift, mask, bits = v4 if ip.is4 else v6
        return (ip.value >> shift) & mask == bits

    return test


_ALL_128 = (1 << 128) - 1
# 127.0.0.0/8 and ::1; 224.0.0.0/4 and ff00::/8; 224.0.0.0/24 and ff02::/16 (any flags); 169.254.0.0/16 and fe80::/10
is_loopback = function("net.IP.isLoopback() -> bool", cost=1)(_in_range((24, 0xFF, 127), (0, _ALL_128, 1)))
_is_multicast = _in_range((28, 0xF, 0xE), (120, 0xFF, 0xFF))
is_link_local_multicast = function("net.IP.isLinkLocalMulticast() -> bool", cost=1)(
    _in_range((8, 0xFFFFFF, 0xE00000), (112, 0xFF0F, 0xFF02))
)
is_link_local_unicast = function("net.IP.isLinkLocalUnicast() -> bool", cost=1)(
    _in_range((16, 0xFFFF, 0xA9FE), (112, 0xFFC0, 0xFE80))
)


@function("net.IP.isGlobalUnicast() -> bool", cost=1)
def is_global_unicast(ip: IP) -> bool:
    ip = ip.unmap()
    if ip.is4 and ip.value in (0, 0xFFFFFFFF):
        return False
    if not ip.is4 and ip.value == 0 and not ip.zone:
        return False
    return not is_loopback(ip) and not _is_multicast(ip) and not is_link_local_unicast(ip)
