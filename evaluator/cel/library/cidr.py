"""Kubernetes' CIDR library (`cidr`, `isCIDR`, `containsIP`, `containsCIDR`, `ip`, `masked`, `prefixLength`).

Prefixes are parsed like Go's `netip.ParsePrefix` (on top of the netip port in ip.py), so messages match
Kubernetes exactly, including its doubled "network address parse error during conversion from string: "
prefix (the library wraps an error that already carries it).
"""

from __future__ import annotations

import math

from evaluator.cel.errors import CELEvalError, no_such_overload
from evaluator.cel.library.ip import IP, AddrParseError, parse_addr, parse_ip
from evaluator.cel.library.support import actual_size, declare_parser, go_quote
from evaluator.cel.registry import function

__all__ = ["CIDR", "parse_cidr"]

_WRAP = "network address parse error during conversion from string: "


class CIDR:
    """A `netip.Prefix`: an address (host bits kept, as Go keeps them) and a prefix length."""

    cel_type_name = "net.CIDR"
    __slots__ = ("addr", "prefix_len")

    def __init__(self, addr: IP, prefix_len: int):
        self.addr, self.prefix_len = addr, prefix_len

    def cel_size(self) -> int:
        return math.ceil(self.prefix_len / 8)

    def masked(self) -> "CIDR":
        host_bits = self.addr.bits - self.prefix_len
        value = (self.addr.value >> host_bits) << host_bits
        return CIDR(IP(value, self.addr.bits), self.prefix_len)

    def contains(self, ip: IP) -> bool:
        """netip's `Prefix.Contains`: same family, no zone, equal leading bits."""
        if ip.zone or ip.bits != self.addr.bits:
            return False
        host_bits = ip.bits - self.prefix_len
        return (ip.value ^ self.addr.value) >> host_bits == 0

    def overlaps(self, other: "CIDR") -> bool:
        """netip's `Prefix.Overlaps`."""
        if self == other:
            return True
        if self.addr.is4 != other.addr.is4:
            return False
        bits = min(self.prefix_len, other.prefix_len)
        if bits == 0:
            return True
        shift = self.addr.bits - bits
        return self.addr.value >> shift == other.addr.value >> shift

    def __eq__(self, other) -> bool:
        return type(other) is CIDR and other.addr == self.addr and other.prefix_len == self.prefix_len

    def __hash__(self) -> int:
        return hash((self.addr, self.prefix_len))

    def __str__(self) -> str:
        return f"{self.addr}/{self.prefix_len}"

    def __repr__(self) -> str:
        return f"cidr({str(self)!r})"


def _parse_prefix(s: str) -> CIDR:
    """Go's `netip.ParsePrefix`; raises ValueError with its message."""

    def fail(msg: str) -> ValueError:
        return ValueError(f"netip.ParsePrefix({go_quote(s)}): {msg}")

    i = s.rfind("/")
    if i < 0:
        raise fail("no '/'")
    try:
        addr = parse_addr(s[:i])
    except AddrParseError as err:
        raise fail(str(err)) from None
    if addr.zone:
        raise fail("IPv6 zones cannot be present in a prefix")
    bits_str = s[i + 1 :]
    # Go's Atoi would accept a sign and leading zeros; netip rejects both.
    if (len(bits_str) > 1 and not "1" <= bits_str[0] <= "9") or not bits_str or not _ascii_digits(bits_str):
        raise fail(f"bad bits after slash: {go_quote(bits_str)}")
    bits = int(bits_str)
    if bits >= 2**63:  # strconv.Atoi range error
        raise fail(f"bad bits after slash: {go_quote(bits_str)}")
    if bits > addr.bits:
        raise fail("prefix length out of range")
    return CIDR(addr, bits)


def _ascii_digits(s: str) -> bool:
    return all("0" <= c <= "9" for c in s)


def parse_cidr(raw: str) -> CIDR:
    """Kubernetes' `stringToCIDR`: netip plus no IPv4-mapped IPv6, both messages wrapped as Kubernetes does."""
    try:
        prefix = _parse_prefix(raw)
    except ValueError as err:
        raise CELEvalError(_WRAP + _WRAP + str(err)) from None
    if prefix.addr.is4in6:
        raise CELEvalError(_WRAP + f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return prefix


def _compare_cost(args: tuple) -> int:
    size = actual_size(args[0])
    return math.ceil((size + size) * 0.1)


def _contains_ip_cost(args: tuple, _result) -> int:
    cost = _compare_cost(args)
    if isinstance(args[1], str):
        cost += math.ceil(actual_size(args[1]) * 0.1)
    return cost


def _contains_cidr_cost(args: tuple, _result) -> int:
    cost = _compare_cost(args) + math.ceil(actual_size(args[0]) * 0.1) + 1
    if isinstance(args[1], str):
        cost += math.ceil(actual_size(args[1]) * 0.1)
    return cost


declare_parser("cidr", "isCIDR", "net.CIDR", parse_cidr)


@function("string(net.CIDR) -> string")
def cidr_to_string(c: CIDR) -> str:
    return str(c)


@function("net.CIDR.containsIP(net.IP) -> bool", cost=_contains_ip_cost)
def cidr_contains_ip(c: CIDR, ip: IP) -> bool:
    return c.contains(ip)


@function("net.CIDR.containsIP(string) -> bool", cost=_contains_ip_cost)
def cidr_contains_ip_string(c: CIDR, s: str) -> bool:
    # Kubernetes passes the parse error to the IP overload, which answers it with a bare "no such overload"
    # (MaybeNoSuchOverloadErr of the CIDR receiver), so the parse message is lost.
    try:
        ip = parse_ip(s)
    except CELEvalError:
        raise no_such_overload() from None
    return c.contains(ip)


@function("net.CIDR.containsCIDR(net.CIDR) -> bool", cost=_contains_cidr_cost)
def cidr_contains_cidr(c: CIDR, other: CIDR) -> bool:
    return c.overlaps(other) and c.prefix_len <= other.prefix_len


@function("net.CIDR.containsCIDR(string) -> bool", cost=_contains_cidr_cost)
def cidr_contains_cidr_string(c: CIDR, s: str) -> bool:
    other = parse_cidr(s)  # here Kubernetes keeps the parse error
    return c.overlaps(other) and c.prefix_len <= other.prefix_len


@function("net.CIDR.ip() -> net.IP", cost=1)
def cidr_ip(c: CIDR) -> IP:
    return c.addr


@function("net.CIDR.masked() -> net.CIDR", cost=1)
def masked(c: CIDR) -> CIDR:
    return c.masked()


@function("net.CIDR.prefixLength() -> int", cost=1)
def prefix_length(c: CIDR) -> int:
    return c.prefix_len
