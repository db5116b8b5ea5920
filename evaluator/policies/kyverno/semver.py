"""blang/semver v4 parsing and ranges (`semver_compare`, numeric operators on versions)."""

from __future__ import annotations

import re

_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


def parse(text: str) -> tuple | None:
    m = _SEMVER.match(text.strip()) if isinstance(text, str) else None
    if not m or text.startswith("v"):
        return None
    pre = tuple(int(p) if p.isdigit() else p for p in m.group(4).split(".")) if m.group(4) else ()
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)


def compare(a: tuple, b: tuple) -> int:
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    pa, pb = a[3], b[3]
    if pa == pb:
        return 0
    if not pa:
        return 1
    if not pb:
        return -1
    for x, y in zip(pa, pb):
        if x == y:
            continue
        if isinstance(x, int) and isinstance(y, int):
            return -1 if x < y else 1
        if isinstance(x, int):
            return -1
        if isinstance(y, int):
            return 1
        return -1 if x < y else 1
    return -1 if len(pa) < len(pb) else 1


def _flat(version: str) -> str:
    """createVersionFromWildcard: 1.x.x and 1.x become 1.0.0."""
    flat = version.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
    return flat + ".0" if len(flat.split(".")) == 2 else flat


def _increment(version: str, part: int) -> str:
    nums = version.split(".")
    nums[part] = str(int(nums[part]) + 1)
    for i in range(part + 1, 3):
        nums[i] = "0"
    return ".".join(nums)


def _expand_wildcards(clauses: list[str]) -> list[str]:
    """blang/semver's expandWildcardVersion: a clause with an `x` becomes one or two plain clauses.

    The wildcard kind comes from the number of parts (3 parts: patch, 2: minor), as blang computes it, and
    `!1.x.x` becomes `<1.0.0 >=1.1.0` in the same conjunction (blang's behaviour, kept).
    """
    out: list[str] = []
    for clause in clauses:
        if "x" not in clause:
            out.append(clause)
            continue
        m = re.match(r"^(>=|<=|!=|==|=|!|>|<)?(.+)$", clause)
        op, version = (m.group(1) or "", m.group(2)) if m else ("", clause)
        parts = version.split(".")
        kind = {3: "patch", 2: "minor"}.get(len(parts)) if parts[-1] == "x" else None
        flat = _flat(version)
        increment = False
        if op == ">":
            op, increment = ">=", True
        elif op == "<=":
            op, increment = "<", True
        elif op in ("", "=", "=="):
            out.append(">=" + flat)
            op, increment = "<", True
        elif op in ("!=", "!"):
            out.append("<" + flat)
            op, increment = ">=", True
        target = flat
        if increment and kind is not None:
            try:
                target = _increment(flat, 1 if kind == "patch" else 0)
            except (ValueError, IndexError):
                target = flat
        out.append(op + target)
    return out


_OPS = {
    "": lambda c: c == 0,
    "=": lambda c: c == 0,
    "==": lambda c: c == 0,
    "!": lambda c: c != 0,
    "!=": lambda c: c != 0,
    ">": lambda c: c > 0,
    "<": lambda c: c < 0,
    ">=": lambda c: c >= 0,
    "<=": lambda c: c <= 0,
}


def satisfies(version: str, range_text: str) -> bool:
    """blang/semver ParseRange(range)(Parse(version)): `||` alternatives of space-separated conjunctions."""
    v = parse(version) or (0, 0, 0, ())
    result = False
    for alternative in range_text.split("||"):
        ok = True
        for clause in _expand_wildcards(alternative.split()):
            m = re.match(r"^(>=|<=|!=|==|=|!|>|<)?(.+)$", clause)
            t = parse(m.group(2)) if m else None
            if m is None or t is None:
                raise ValueError(f"Could not parse Range {range_text!r}")
            ok = ok and _OPS[m.group(1) or ""](compare(v, t))
        result = result or ok
    return result
