"""Edit tokens and short ids: tokens are shown once, stored as a SHA-256 hash and compared in constant time.

A token has 256 random bits, so a plain (unsalted) hash is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no look-alikes (i/l/1, o/0)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str | None, stored_hash: str) -> bool:
    """Constant-time check of a presented token against the stored hash; no token never matches."""
    if not token or not stored_hash:
        return False
    return hmac.compare_digest(hash_token(token), stored_hash)


def new_project_id(length: int = 10) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def content_id(data: bytes, length: int = 10) -> str:
    """A short id that is a function of the content (base32 of SHA-256, lower case)."""
    digest = hashlib.sha256(data).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:length]
