import pytest


@pytest.fixture(autouse=True)
def _evaluate_in_threads(settings):
    """Evaluations in the playground's threads: spawning worker processes per test would be slow
    (test_evaluation_pool.py covers the worker processes)."""
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
