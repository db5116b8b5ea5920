"""Impact jobs run on the batch runner's local backend in threads of the test process (no broker, no pool)."""

import pytest

from playground.batch import local


@pytest.fixture(autouse=True)
def local_backend(settings):
    settings.PLAYGROUND_BATCH_BACKEND = "local"
    settings.PLAYGROUND_BATCH_PROCESSES = 0
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 10
    yield
    local.wait(timeout=60)
