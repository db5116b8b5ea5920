"""Batch tests run the local backend in threads of the test process (no broker, no pool processes)."""

import pytest

from playground.batch import local
from tests.playground.batch.dumps import two_policy_project


@pytest.fixture(autouse=True)
def local_backend(settings):
    settings.PLAYGROUND_BATCH_BACKEND = "local"
    settings.PLAYGROUND_BATCH_PROCESSES = 0
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 10
    yield
    local.wait(timeout=60)


@pytest.fixture
def project(client):
    response = client.post("/api/v1/projects", two_policy_project(), content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def auth(token: str) -> dict:
    return {"HTTP_X_EDIT_TOKEN": token}
