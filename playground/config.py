"""Turn environment variables into Django settings values.

Kept apart from settings.py as plain functions of a mapping so the parsing can be
tested without reloading Django.
"""

from __future__ import annotations

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


def env_list(env: Mapping[str, str], name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list, ignoring blanks."""
    raw = env.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_config(env: Mapping[str, str], base_dir: Path) -> dict:
    """DATABASE_URL (any dj-database-url scheme), else SQLite at <base_dir>/db.sqlite3."""
    url = env.get("DATABASE_URL", "").strip() or f"sqlite:///{base_dir / 'db.sqlite3'}"
    return dj_database_url.parse(url, conn_max_age=0)


def channel_layers_config(env: Mapping[str, str]) -> dict:
    """REDIS_URL selects the Redis channel layer (needed for several processes); else in-memory."""
    redis_url = env.get("REDIS_URL", "").strip()
    if redis_url:
        return {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                # A teacher's dashboard channel takes ~30 messages a second in a full room: room for bursts.
                "CONFIG": {"hosts": [redis_url], "capacity": 1000, "expiry": 60},
            }
        }
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
