"""Kubernetes' semver library (SemverLib version 1: `semver`, `isSemver`, with the `normalize` overloads).

Parsing follows blang/semver v4's `Parse` step by step, since Kubernetes surfaces its error messages.
"""

from __future__ import annotations

from evaluator.cel.errors import CELEvalError
from evaluator.cel.library.support import declare_ordering, go_quote, parses, string_cost
from evaluator.cel.registry import function

__all__ = ["Semver", "parse_semver", "normalize_and_parse", "SemverError"]

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    pass


class Semver:
    """A blang `semver.Version`: major, minor, patch (uint64), prerelease parts and build metadata."""

    cel_type_name = "kubernetes.Semver"
    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple = (), build: tuple = ()):
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def compare(self, o: "Semver") -> int:
        """blang's `Version.Compare`: build metadata has no precedence."""
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre or not o.pre:
            return (len(self.pre) == 0) - (len(o.pre) == 0)
        for a, b in zip(self.pre, o.pre):
            c = _compare_pre(a, b)
            if c:
                return c
        return (len(self.pre) > len(o.pre)) - (len(self.pre) < len(o.pre))

    def __eq__(self, other) -> bool:
        return type(other) is Semver and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self) -> str:
        return f"semver({str(self)!r})"


def _compare_pre(a: int | str, b: int | str) -> int:
    """Numeric identifiers sort before alphanumeric ones; strings compare bytewise."""
    if isinstance(a, int) != isinstance(b, int):
        return -1 if isinstance(a, int) else 1
    if isinstance(a, str):
        a, b = a.encode(), b.encode()  # type: ignore[union-attr]
    return (a > b) - (a < b)


def _contains_only(s: str, allowed: frozenset) -> bool:
    return all(ch in allowed for ch in s)


def _parse_uint(s: str) -> int:
    """Go's strconv.ParseUint(s, 10, 64) for a string already known to hold only ASCII digits."""
    if s == "":
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    if len(s.lstrip("0")) > 20 or int(s) > UINT64_MAX:  # UINT64_MAX has 20 digits: more never fit (nor convert)
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(s)}: value out of range")
    return int(s)


def _number(part: str, name: str) -> int:
    if not _contains_only(part, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {name.lower()} number {go_quote(part)}")
    if len(part) > 1 and part[0] == "0":
        raise SemverError(f"{name} number must not contain leading zeroes {go_quote(part)}")
    return _parse_uint(part)


def parse_semver(s: str) -> Semver:
    """blang/semver v4 `Parse`."""
    if not s:
        raise SemverError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "Major")
    minor = _number(parts[1], "Minor")
    patch_str, build, pre = parts[2], [], []
    if "+" in patch_str:
        patch_str, build_str = patch_str.split("+", 1)
        build = build_str.split(".")
    if "-" in patch_str:
        patch_str, pre_str = patch_str.split("-", 1)
        pre = pre_str.split(".")
    patch = _number(patch_str, "Patch")
    parsed_pre: list[int | str] = []
    for p in pre:
        if not p:
            raise SemverError("Prerelease is empty")
        if _contains_only(p, _NUMBERS):
            if len(p) > 1 and p[0] == "0":
                raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(p)}")
            parsed_pre.append(_parse_uint(p))
        elif _contains_only(p, _ALPHANUM):
            parsed_pre.append(p)
        else:
            raise SemverError(f"Invalid character(s) found in prerelease {go_quote(p)}")
    for b in build:
        if not b:
            raise SemverError("Build meta data is empty")
        if not _contains_only(b, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {go_quote(b)}")
    return Semver(major, minor, patch, tuple(parsed_pre), tuple(build))


def normalize_and_parse(s: str) -> Semver:
    """Kubernetes' `normalizeAndParse`: drop one leading "v", pad to three parts, strip leading zeros."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


def _parse(s: str, normalize: bool) -> Semver:
    try:
        return normalize_and_parse(s) if normalize else parse_semver(s)
    except SemverError as err:
        raise CELEvalError(str(err)) from None


def _int64(v: int) -> int:
    """Go's int64(uint64) conversion."""
    return v - 2**64 if v > 2**63 - 1 else v


# --- CEL functions -------------------------------------------------------------------------------


@function("semver(string) -> kubernetes.Semver", cost=string_cost)
def string_to_semver(s: str) -> Semver:
    return _parse(s, False)


@function("semver(string, bool) -> kubernetes.Semver", cost=string_cost)
def string_to_semver_normalize(s: str, normalize: bool) -> Semver:
    return _parse(s, normalize)


@function("isSemver(string) -> bool", cost=string_cost)
def is_semver(s: str) -> bool:
    return is_semver_normalize(s, False)


@function("isSemver(string, bool) -> bool", cost=string_cost)
def is_semver_normalize(s: str, normalize: bool) -> bool:
    return parses(lambda text: _parse(text, normalize), CELEvalError, s)


@function("kubernetes.Semver.major() -> int", cost=1)
def semver_major(v: Semver) -> int:
    return _int64(v.major)


@function("kubernetes.Semver.minor() -> int", cost=1)
def semver_minor(v: Semver) -> int:
    return _int64(v.minor)


@function("kubernetes.Semver.patch() -> int", cost=1)
def semver_patch(v: Semver) -> int:
    return _int64(v.patch)


declare_ordering("kubernetes.Semver", Semver.compare)
