"""ValidatingPolicies with `evaluation.mode` Envoy or HTTP (kyverno-authz), as `kyverno test` runs them on
Envoy / HTTP CheckRequest payloads (cmd/cli/kubectl-kyverno/processor/authz_processor.go).

`object` is the CheckRequest; validations return a response or null: the first non-null one decides
(allowed -> pass "request allowed"; denied -> fail "request denied with status code <code>" for Envoy,
"request denied, reason: <reason>" for HTTP), an error -> error, none -> skip "request does not match".
The response builders (`envoy.Allowed()`, `envoy.Denied(code)`, `http.Allowed()`, `http.Denied(reason)`,
`.WithHeader`, `.WithBody`, `.Response()`) and `jwt.Decode(token, key)` (HS256/384/512 signatures checked,
`exp`/`nbf` honoured) live in their own registry: they exist in these modes only.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.errors import CELEvalError
from evaluator.cel.registry import REGISTRY
from evaluator.cel.types import DYN

from .libs import LayeredRegistry

AUTHZ_REGISTRY = LayeredRegistry(REGISTRY)


def function(*signatures: str):
    def decorate(impl):
        for sig in signatures:
            AUTHZ_REGISTRY.add(sig, impl, cost=1)
        return impl

    return decorate


@dataclass(frozen=True)
class Response:
    """A built response: `allowed`, the HTTP status code (Envoy) or reason (HTTP), headers and body."""

    cel_type_name = "authz.Response"
    allowed: bool
    code: int = 0
    reason: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""


@dataclass(frozen=True)
class Builder:
    cel_type_name = "authz.Builder"
    response: Response = field(default_factory=lambda: Response(True))


@function("envoy.Allowed() -> authz.Builder", "http.Allowed() -> authz.Builder")
def allowed():
    return Builder(Response(True))


@function("envoy.Denied(int) -> authz.Builder")
def envoy_denied(code):
    return Builder(Response(False, code=int(code)))


@function("http.Denied(string) -> authz.Builder")
def http_denied(reason):
    return Builder(Response(False, reason=reason))


@function("authz.Builder.WithHeader(string, string) -> authz.Builder")
def with_header(builder, key, value):
    return Builder(replace(builder.response, headers=builder.response.headers + ((key, value),)))


@function("authz.Builder.WithBody(string) -> authz.Builder")
def with_body(builder, body):
    return Builder(replace(builder.response, body=body))


@function("authz.Builder.Response() -> authz.Response")
def response(builder):
    return builder.response


def _b64(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


_HASHES = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}


@function("jwt.Decode(string, string) -> dyn")
def jwt_decode(token, key):
    """{"Valid", "Header", "Claims"}: a token that does not parse is an error; a bad signature or an
    expired / not yet valid token is returned with Valid false."""
    parts = token.split(".")
    if len(parts) != 3:
        raise CELEvalError("token is malformed: token contains an invalid number of segments")
    try:
        header, claims = json.loads(_b64(parts[0])), json.loads(_b64(parts[1]))
        signature = _b64(parts[2])
    except (ValueError, TypeError):
        raise CELEvalError("token is malformed: could not base64 decode or JSON-decode a segment") from None
    digest = _HASHES.get(str(header.get("alg")) if isinstance(header, dict) else "")
    valid = digest is not None and hmac.compare_digest(
        hmac.new(key.encode(), f"{parts[0]}.{parts[1]}".encode(), digest).digest(), signature
    )
    now = time.time()
    if isinstance(claims, dict):
        if isinstance(claims.get("exp"), (int, float)) and now >= claims["exp"]:
            valid = False
        if isinstance(claims.get("nbf"), (int, float)) and now < claims["nbf"]:
            valid = False
    return {"Valid": valid, "Header": header, "Claims": claims}


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    return replace(
        _cel.admission_env(), variables={"object": DYN, "variables": DYN}, registry=AUTHZ_REGISTRY, name="kyverno-authz"
    )


def decide(value: Any, mode: str) -> tuple[str, str] | None:
    """(status, message) for a validation's value, or None to go on with the next one."""
    if value is None:
        return None
    if not isinstance(value, Response):
        raise CELEvalError(f"unexpected validation result type {_cel.type_name(value)}")
    if value.allowed:
        return "pass", "request allowed"
    if mode == "Envoy":
        return "fail", f"request denied with status code {value.code}"
    return "fail", f"request denied, reason: {value.reason}"
