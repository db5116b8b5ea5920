"""The pool with one worker process, for the tests of its supervision (test_pool.py, test_lane.py)."""

from __future__ import annotations

import pytest

from playground.evaluation import pool


@pytest.fixture
def one_worker(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 1
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 10
    settings.PLAYGROUND_EVALUATION_MEMORY_MB = 512
    assert pool.wait_until_started()
    yield pool
    pool.shutdown()
