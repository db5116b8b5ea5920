"""The ASGI application (what daphne serves) routes HTTP through Django."""

import json

import pytest
from channels.testing import HttpCommunicator

from playground.asgi import application


@pytest.mark.django_db(transaction=True)
async def test_asgi_application_serves_healthz():
    communicator = HttpCommunicator(application, "GET", "/healthz", headers=[(b"host", b"localhost")])
    response = await communicator.get_response(timeout=10)
    await communicator.wait(timeout=10)  # let Django finish the request (closing its DB connection)
    assert response["status"] == 200
    body = json.loads(response["body"])
    assert (body["status"], body["database"], body["channel_layer"], body["evaluation"]) == ("ok", "ok", "ok", "ok")
