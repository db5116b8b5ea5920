"""The declarations the library types share (library/support.py): the overloads a helper declares for a type
belong to that type's library, so they appear in the Kubernetes release that introduced it, not before."""

from __future__ import annotations

import pytest

from evaluator.cel.versions import registry_for

# (function, the type its overload takes first, the compatibility minor from which it is declared)
GENERATED = [
    ("quantity", "string", 28),
    ("isQuantity", "string", 28),
    ("compareTo", "kubernetes.Quantity", 28),
    ("isGreaterThan", "kubernetes.Quantity", 28),
    ("isLessThan", "kubernetes.Quantity", 28),
    ("add", "kubernetes.Quantity", 28),
    ("sub", "kubernetes.Quantity", 28),
    ("ip", "string", 30),
    ("isIP", "string", 30),
    ("isLoopback", "net.IP", 30),
    ("isLinkLocalMulticast", "net.IP", 30),
    ("cidr", "string", 30),
    ("isCIDR", "string", 30),
    ("compareTo", "kubernetes.Semver", 33),
    ("isGreaterThan", "kubernetes.Semver", 33),
    ("isLessThan", "kubernetes.Semver", 33),
]


def declared(name: str, first: str, minor: int) -> int:
    return sum(str(o.params[0]) == first for o in registry_for(minor).overloads(name))


@pytest.mark.parametrize(("name", "first", "minor"), GENERATED, ids=[f"{g[1]}.{g[0]}" for g in GENERATED])
def test_generated_overloads_follow_their_library_gate(name, first, minor):
    assert declared(name, first, minor - 1) == 0
    assert declared(name, first, minor) >= 1


def test_add_and_sub_take_a_quantity_or_an_int():
    for name in ("add", "sub"):
        seconds = {str(o.params[1]) for o in registry_for(37).overloads(name)}
        assert seconds == {"kubernetes.Quantity", "int"}
