"""/healthz checks the database and the channel layer for real."""

import os

import pytest
from django.conf import settings
from django.db import connection

import playground.health as health

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_channel_layer_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["database"], body["channel_layer"], body["evaluation"]) == ("ok", "ok", "ok", "ok")


def test_healthz_is_503_when_the_database_fails(client, monkeypatch):
    class BrokenConnection:
        def cursor(self):
            raise RuntimeError("connection refused")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["database"], body["channel_layer"]) == ("error", "error", "ok")


def test_healthz_is_degraded_not_503_when_only_the_channel_layer_fails(client, monkeypatch):
    class BrokenLayer:
        async def new_channel(self):
            return "health.broken!x"

        async def send(self, channel, message):
            raise ConnectionError("redis is down")

    monkeypatch.setattr(health, "get_channel_layer", lambda: BrokenLayer())
    response = client.get("/healthz")
    assert response.status_code == 200  # REST keeps serving: a load balancer must not take it out
    assert response.json()["status"] == "degraded"
    assert response.json()["channel_layer"] == "error"
    assert response.json()["database"] == "ok"


def test_healthz_rejects_other_methods(client):
    assert client.post("/healthz").status_code == 405


def test_channel_layer_backend_follows_redis_url():
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        assert backend == "playground.core.redis_layer.BoundedRedisChannelLayer"
    else:
        assert backend == "channels.layers.InMemoryChannelLayer"


@pytest.mark.postgres
def test_database_is_postgresql_when_database_url_says_so(client):
    assert connection.vendor == "postgresql"
    assert client.get("/healthz").json()["database"] == "ok"


def test_healthz_is_503_draining_once_the_server_shuts_down(client, monkeypatch):
    """After SIGTERM (playground/shutdown.py): out of the load balancer while the sockets are drained."""
    from playground.core import drain

    monkeypatch.setattr(drain, "_draining", True)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert (response.json()["status"], response.json()["database"]) == ("draining", "ok")
