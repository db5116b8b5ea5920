"""Suite-wide pytest hooks. Must not import Django: tests of evaluator/ run without it."""

from __future__ import annotations

import os
import shutil

import pytest


def _database_is_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://", "pgsql://"))


def pytest_collection_modifyitems(config, items):
    """Skip tests whose service is not configured, saying why, rather than failing on the machine."""
    skip_postgres = pytest.mark.skip(reason="needs DATABASE_URL=postgres://… (run `make test-postgres`)")
    skip_browser = pytest.mark.skip(reason="needs Chromium at /usr/bin/chromium")
    has_browser = shutil.which("chromium") is not None
    for item in items:
        if "postgres" in item.keywords and not _database_is_postgres():
            item.add_marker(skip_postgres)
        if "browser" in item.keywords and not has_browser:
            item.add_marker(skip_browser)
