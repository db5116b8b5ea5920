"""Shared pieces of the Pod Security Standards checks: results with field errors and message helpers
(k8s.io/pod-security-admission/policy: checks.go, violations.go, helpers.go, visitor.go)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

BASELINE, RESTRICTED = "baseline", "restricted"


@dataclass
class FieldError:
    type: str  # "Forbidden" | "Required"
    field: str
    bad_value: object = ""

    def error(self) -> str:
        return f"{self.field}: {'Required value' if self.type == 'Required' else 'Forbidden'}"


@dataclass
class CheckResult:
    allowed: bool = True
    reason: str = ""
    detail: str = ""
    errors: list[FieldError] | None = None


@dataclass
class Check:
    id: str
    level: str
    versions: list[tuple[tuple[int, int], Callable[[dict, dict], CheckResult]]]


class Violations:
    def __init__(self) -> None:
        self.data: list[str] = []
        self.errs: list[FieldError] = []

    def add(self, data: str, *errs: FieldError | None) -> None:
        self.data.append(data)
        self.errs.extend(e for e in errs if e is not None)


def forbidden_error(path: str, bad: object = "") -> FieldError:
    return FieldError("Forbidden", path, bad)


def required_error(path: str) -> FieldError:
    return FieldError("Required", path, "")


def join_quote(items: list[str]) -> str:
    return '"' + '", "'.join(items) + '"' if items else ""


def plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def as_map(v: object) -> dict:
    return v if isinstance(v, dict) else {}


def containers(spec: dict):
    """visitContainers: init, regular, ephemeral, with their field paths."""
    for ctype in ("initContainers", "containers", "ephemeralContainers"):
        items = spec.get(ctype)
        if isinstance(items, list):
            for i, c in enumerate(items):
                yield as_map(c), f"spec.{ctype}[{i}]"


def security_context(c: dict) -> dict | None:
    sc = c.get("securityContext")
    return sc if isinstance(sc, dict) else None


def is_windows(spec: dict) -> bool:
    return as_map(spec.get("os")).get("name") == "windows"


def counted(singular: str, plural_: str, names: list[str]) -> str:
    """`container "a"` / `containers "a", "b"`: the noun agreeing with the quoted names."""
    return f"{plural(singular, plural_, len(names))} {join_quote(names)}"


def containers_phrase(names: list[str]) -> str:
    return counted("container", "containers", names)


def container_failure(reason: str, bad: Violations, detail: str) -> CheckResult:
    """The usual answer of a per-container check: allowed when no container is at fault, else
    `container(s) "a", ... <detail>` with their field errors."""
    if not bad.data:
        return CheckResult()
    return CheckResult(False, reason, f"{containers_phrase(bad.data)} {detail}", bad.errs)


def setters_failure(reason: str, setters: Violations, detail: str) -> CheckResult:
    """The answer of a check the pod and its containers can fail: `pod and containers "a" <detail>`."""
    if not setters.data:
        return CheckResult()
    return CheckResult(False, reason, f"{' and '.join(setters.data)} {detail}", setters.errs)
