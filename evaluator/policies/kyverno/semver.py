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


def _expand(version: str) -> str:
    parts = version.split("-", 1)
    nums = parts[0].split(".")
    nums = [("0" if n in ("x", "X", "*") else n) for n in nums]
    while len(nums) < 3:
        nums.append("0")
    return ".".join(nums) + ("-" + parts[1] if len(parts) > 1 else "")


def satisfies(version: str, range_text: str) -> bool:
    v = parse(version) or (0, 0, 0, ())
    for alternative in range_text.split("||"):
        ok = True
        for clause in alternative.split():
            m = re.match(r"^(>=|<=|!=|==|=|>|<)?(.+)$", clause)
            if not m:
                raise ValueError(f"Could not parse Range {range_text!r}")
            op, target = m.group(1) or "=", m.group(2)
            t = parse(_expand(target))
            if t is None:
                raise ValueError(f"Could not parse Range {range_text!r}")
            c = compare(v, t)
            ok = (
                ok and {"=": c == 0, "==": c == 0, "!=": c != 0, ">": c > 0, "<": c < 0, ">=": c >= 0, "<=": c <= 0}[op]
            )
        if ok:
            return True
    return False
