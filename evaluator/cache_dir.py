"""Where this user's caches of derived data live (the CEL parser, the CLI's compiled dataclass methods):
`ADMISSION_PLAYGROUND_CACHE_DIR` (empty: no caching), else `$XDG_CACHE_HOME/admission-playground`."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path | None:
    """The directory (it may not exist yet), or None when caching is turned off."""
    configured = os.environ.get("ADMISSION_PLAYGROUND_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "admission-playground"
