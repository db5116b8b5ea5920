"""Suite-wide pytest hooks. Must not import Django: tests of evaluator/ run without it."""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import settings as hypothesis_settings

# Hypothesis' 200 ms per-example deadline measures the machine, not the code: on a loaded 2-core CI runner it
# fails as DeadlineExceeded/Flaky. Hang guards live in the tests that need them. HYPOTHESIS_PROFILE picks another.
hypothesis_settings.register_profile("suite", deadline=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture
def no_wall_clock_limit(monkeypatch):
    """CEL's 1 s wall-clock guard off, so a cost-limit test measures cost and not the machine's speed."""
    from evaluator.cel.program import Program

    monkeypatch.setitem(Program.evaluate.__kwdefaults__, "timeout", None)


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


@pytest.fixture(autouse=True)
def _no_dispatch_kept_by_an_earlier_test():
    """Every test starts with no policy dispatch kept for reuse (evaluator/policies/validating/reuse.py): a test
    that patches the engine, or counts what it runs, must see it run."""
    from evaluator.policies.validating import reuse

    reuse.clear()
