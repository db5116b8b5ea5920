"""Turn environment variables into Django settings values.

Kept apart from settings.py as plain functions of a mapping so the parsing can be
tested without reloading Django.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import dj_database_url

_TRUE_WORDS = {"1", "true", "yes", "on"}
_FALSE_WORDS = {"0", "false", "no", "off", ""}


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Read a boolean flag; unknown words are an error rather than a silent False."""
    raw = env.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(env: Mapping[str, str], name: str, default: int, minimum: int | None = None) -> int:
    """Read an integer; a word that is not one (or is below ``minimum``) is an error naming the variable."""
    return _env_number(env, name, default, minimum, int, "an integer")


def env_float(env: Mapping[str, str], name: str, default: float, minimum: float | None = None) -> float:
    """Read a finite number; anything else is an error naming the variable."""
    return _env_number(env, name, default, minimum, float, "a number")


def _env_number(env: Mapping[str, str], name: str, default, minimum, parse, what: str):
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={raw!r} must be at least {minimum:g}")
    return value


# Scripts only from this origin, never inline. Styles allow 'unsafe-inline' because CodeMirror 6 injects its
# theme as <style> elements; Swagger UI comes from our own static files with its set-up script as a file.
DEFAULT_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def env_content_security_policy(env: Mapping[str, str], name: str, default: str) -> str:
    """A Content-Security-Policy header value: printable ASCII directives separated by `;` (a line break or
    control character would split the header); empty or unset means the default, which is never switched off."""
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    value = " ".join(raw.split())
    if not value.isascii() or not value.isprintable():
        raise ValueError(f"{name}={raw!r} must be printable ASCII (a Content-Security-Policy header value)")
    directives = [d.strip() for d in value.split(";") if d.strip()]
    bad = [d for d in directives if not re.match(r"^[a-z][a-z0-9-]*( |$)", d)]
    if not directives or bad:
        raise ValueError(f"{name}={raw!r}: {bad[0] if bad else value!r} is not a CSP directive (name then values)")
    return "; ".join(directives)


def env_list(env: Mapping[str, str], name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list, ignoring blanks."""
    raw = env.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_config(env: Mapping[str, str], base_dir: Path) -> dict:
    """DATABASE_URL (any dj-database-url scheme), else SQLite at <base_dir>/db.sqlite3.

    On PostgreSQL, connections come from a bounded pool (psycopg_pool, see database_pool_options): a request
    takes one when it first queries and gives it back when it ends, so a crowd of requests shares at most
    DATABASE_POOL_MAX_SIZE server sessions per process instead of opening one each until the server refuses
    ("too many clients already"). With the pool off (DATABASE_POOL_MAX_SIZE=0, and on other databases) a
    connection is kept for DATABASE_CONN_MAX_AGE seconds (checked before reuse), not opened per query: the
    WebSocket room saves every edit, and a new PostgreSQL connection costs more than the write."""
    url = env.get("DATABASE_URL", "").strip() or f"sqlite:///{base_dir / 'db.sqlite3'}"
    max_age = env_int(env, "DATABASE_CONN_MAX_AGE", 600, minimum=0)
    config = dj_database_url.parse(url, conn_max_age=max_age, conn_health_checks=max_age > 0)
    pool = database_pool_options(env) if config["ENGINE"] == "django.db.backends.postgresql" else None
    if pool:
        # Django refuses persistent connections beside a pool: "closing" a connection returns it to the pool.
        # The pool checks a connection before lending it, so one the server dropped is never handed out.
        config.update(CONN_MAX_AGE=0, CONN_HEALTH_CHECKS=True)
        config.setdefault("OPTIONS", {})["pool"] = pool
    return config


def database_pool_options(env: Mapping[str, str]) -> dict | None:
    """psycopg_pool.ConnectionPool arguments from the DATABASE_POOL_* variables; None when
    DATABASE_POOL_MAX_SIZE is 0 (no pool). A request that finds every connection lent waits up to
    DATABASE_POOL_TIMEOUT seconds, then is answered 503 with Retry-After; connections above
    DATABASE_POOL_MIN_SIZE idle for DATABASE_POOL_MAX_IDLE seconds are closed, so a past crowd holds no
    server sessions."""
    max_size = env_int(env, "DATABASE_POOL_MAX_SIZE", 10, minimum=0)
    if max_size == 0:
        return None
    min_size = env_int(env, "DATABASE_POOL_MIN_SIZE", min(2, max_size), minimum=0)
    if min_size > max_size:
        raise ValueError(f"DATABASE_POOL_MIN_SIZE={min_size} must not exceed DATABASE_POOL_MAX_SIZE={max_size}")
    return {
        "min_size": min_size,
        "max_size": max_size,
        "timeout": env_float(env, "DATABASE_POOL_TIMEOUT", 5.0, minimum=0.01),
        "max_idle": env_float(env, "DATABASE_POOL_MAX_IDLE", 60.0, minimum=1.0),
    }


def redis_pool_options(env: Mapping[str, str]) -> dict:
    """Bounds of one process's Redis connections, for the channel layer and the cache alike.

    At most REDIS_MAX_CONNECTIONS per pool; a burst beyond them waits up to REDIS_POOL_WAIT_SECONDS for one
    to come back. A connection attempt gives up after REDIS_CONNECT_TIMEOUT_SECONDS, so while Redis is
    unreachable a command fails at once and the sockets are told `unavailable` instead of hanging."""
    return {
        "max_connections": env_int(env, "REDIS_MAX_CONNECTIONS", 64, minimum=2),
        "timeout": env_float(env, "REDIS_POOL_WAIT_SECONDS", 5, minimum=0.1),
        "socket_connect_timeout": env_float(env, "REDIS_CONNECT_TIMEOUT_SECONDS", 1, minimum=0.05),
    }


def channel_layers_config(env: Mapping[str, str]) -> dict:
    """REDIS_URL selects the Redis channel layer (needed for several processes); else in-memory."""
    redis_url = env.get("REDIS_URL", "").strip()
    if redis_url:
        return {
            "default": {
                "BACKEND": "playground.core.redis_layer.BoundedRedisChannelLayer",
                # A teacher's dashboard channel takes ~30 messages a second in a full room: room for bursts.
                "CONFIG": {
                    "hosts": [{"address": redis_url, **redis_pool_options(env)}],
                    "capacity": 1000,
                    "expiry": 60,
                },
            }
        }
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def cache_config(env: Mapping[str, str]) -> dict:
    """Redis when REDIS_URL is set (shared by every process, so the rate limits hold across them), with the
    same bounded pool as the channel layer and a short read timeout: the limits are skipped while it is down
    (api/throttles.py), never waited for. Else this process's memory."""
    redis_url = env.get("REDIS_URL", "").strip()
    if not redis_url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    options = redis_pool_options(env)
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "OPTIONS": {
                "pool_class": "redis.BlockingConnectionPool",
                **options,
                "socket_timeout": max(1.0, options["socket_connect_timeout"]),
            },
        }
    }
