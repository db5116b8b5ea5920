import pytest

from playground.workshops.services.database import close_pool_connections


@pytest.fixture(autouse=True)
def _evaluate_in_threads(settings):
    """Evaluations in the playground's threads: spawning worker processes per test would be slow
    (test_evaluation_pool.py covers the worker processes)."""
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0


@pytest.fixture(autouse=True)
def _close_workshop_connections():
    """The consumers' PostgreSQL pool keeps connections open between calls: close them after each test."""
    yield
    close_pool_connections()
