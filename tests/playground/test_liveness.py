"""/livez answers while a dependency is down, where /healthz says 503: the liveness probe restarts nothing then."""

import pytest

import playground.health as health

pytestmark = pytest.mark.django_db


def test_livez_answers_ok_while_healthz_reports_the_database_down(client, monkeypatch):
    class BrokenConnection:
        def cursor(self):
            raise RuntimeError("connection refused")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    assert client.get("/healthz").status_code == 503
    response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_livez_takes_only_get(client):
    assert client.post("/livez").status_code == 405
