"""/metrics: refused (404) unless METRICS_ALLOW or METRICS_TOKEN lets the request in, and then the counters
that the work done in this process moved (evaluations, WebSockets, the pool, batch jobs)."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from playground.asgi import application
from playground.batch.models import BatchJob
from playground.metrics_access import parse_networks
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.django_db

OUTSIDE = "203.0.113.5"  # TEST-NET-3: outside the default loopback-only rule


def samples(response) -> dict[tuple[str, tuple], float]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def evaluations(metrics: dict, kind: str, outcome: str) -> float:
    return metrics.get(("playground_evaluations_total", (("kind", kind), ("outcome", outcome))), 0.0)


def test_refused_by_default_from_an_address_not_allowed(client):
    response = client.get("/metrics", REMOTE_ADDR=OUTSIDE)
    assert response.status_code == 404
    assert b"playground_" not in response.content
    assert client.post("/metrics", REMOTE_ADDR=OUTSIDE).status_code == 404  # not even a 405 tells it is there


def test_served_to_loopback_by_default_but_not_through_a_proxy(client):
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=OUTSIDE).status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_FORWARDED=f"for={OUTSIDE}").status_code == 404
    assert client.post("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 405


def test_served_with_the_token_from_anywhere(client, settings):
    settings.METRICS_TOKEN = "scrape-token-0123456789"
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert (
        client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Basic scrape-token-0123456789").status_code
        == 404
    )
    response = client.get(
        "/metrics",
        REMOTE_ADDR=OUTSIDE,
        HTTP_X_FORWARDED_FOR=OUTSIDE,
        HTTP_AUTHORIZATION="Bearer scrape-token-0123456789",
    )
    assert response.status_code == 200
    assert b"playground_evaluation_seconds" in response.content


def test_an_empty_token_lets_nobody_in(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_metrics_allow_takes_networks(client, settings):
    settings.METRICS_ALLOW = parse_networks(["10.0.0.0/8", "fd00::/8"])
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="fd00::7").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="not an address").status_code == 404


def test_a_bad_network_is_refused_naming_it():
    with pytest.raises(ValueError, match="'10.0.0.0/33'"):
        parse_networks(["127.0.0.1", "10.0.0.0/33"])


def test_an_evaluation_moves_the_evaluation_counter_and_histogram(client):
    before = samples(client.get("/metrics"))
    body = project_body()
    response = client.post(
        "/api/v1/evaluate",
        {"documents": body["documents"], "requests": body["requests"]},
        content_type="application/json",
    )
    assert response.status_code == 200
    after = samples(client.get("/metrics"))
    assert evaluations(after, "evaluate_project", "ok") == evaluations(before, "evaluate_project", "ok") + 1
    count = ("playground_evaluation_seconds_count", (("kind", "evaluate_project"),))
    assert after[count] == before.get(count, 0.0) + 1
    assert ("playground_evaluation_workers_alive", ()) in after


def test_batch_jobs_are_read_from_the_database(client):
    BatchJob.objects.create(id="j1", project_id="p", documents=[], total=10, done=4, edit_token_hash="x")
    BatchJob.objects.create(id="j2", project_id="p", documents=[], total=5, done=5, status="done", edit_token_hash="x")
    metrics = samples(client.get("/metrics"))
    assert metrics[("playground_batch_jobs", (("status", "queued"),))] == 1
    assert metrics[("playground_batch_objects_evaluated", (("status", "done"),))] == 5
    assert metrics[("playground_batch_objects_waiting", ())] == 6


def gauge(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.django_db(transaction=True)
async def test_websocket_connections_and_messages_are_counted():
    from asgiref.sync import sync_to_async

    from playground.services import project_service

    body = project_body()
    state, _ = await sync_to_async(project_service.create_project)(
        title=body["title"], documents=body["documents"], requests=body["requests"]
    )
    opened = gauge("playground_websocket_connections", area="project room")
    invalid = gauge("playground_websocket_messages_total", area="project room", type="invalid")
    ws = WebsocketCommunicator(
        application, f"/ws/projects/{state['id']}/", headers=[(b"host", b"localhost"), (b"origin", b"http://localhost")]
    )
    connected, _ = await ws.connect(timeout=10)
    assert connected
    assert gauge("playground_websocket_connections", area="project room") == opened + 1
    await ws.send_to(text_data="{not json")
    reply = await ws.receive_json_from(timeout=10)
    while reply["type"] != "error":
        reply = await ws.receive_json_from(timeout=10)
    assert gauge("playground_websocket_messages_total", area="project room", type="invalid") == invalid + 1
    await ws.disconnect(timeout=10)
    await asyncio.sleep(0)
    assert gauge("playground_websocket_connections", area="project room") == opened


def test_each_outcome_of_a_job_is_its_own_label():
    from concurrent.futures import Future

    from playground.core import metrics
    from playground.core.errors import ServiceError

    def probe_job():
        """Never run: its name is the kind."""

    def count(outcome):
        return gauge("playground_evaluations_total", kind="probe_job", outcome=outcome)

    before = {outcome: count(outcome) for outcome in ("ok", "busy", "abandoned", "error")}
    futures = [metrics.observe_evaluation(probe_job, Future()) for _ in range(4)]
    futures[0].set_result({})
    futures[1].set_exception(ServiceError("busy", "too many", 503))
    futures[2].cancel()
    futures[3].set_exception(RuntimeError("bug"))
    assert {outcome: count(outcome) - before[outcome] for outcome in before} == {
        "ok": 1,
        "busy": 1,
        "abandoned": 1,
        "error": 1,
    }


def pool_samples(metrics: dict) -> dict[str, float]:
    return {name: value for (name, _), value in metrics.items() if name.startswith("playground_database_pool_")}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_database_pool_saturation_is_read_from_the_pool_django_holds(client, settings):
    """PostgreSQL: the bound, connections lent and idle, and the requests that asked, as psycopg_pool counts."""
    from django.db import connections

    pool = connections["default"].pool
    before = pool_samples(samples(client.get("/metrics", REMOTE_ADDR="127.0.0.1")))
    held = pool.getconn()  # one lent outside Django: the next scrape sees it in use
    try:
        during = pool_samples(samples(client.get("/metrics", REMOTE_ADDR="127.0.0.1")))
    finally:
        pool.putconn(held)
    assert during["playground_database_pool_max"] == settings.DATABASES["default"]["OPTIONS"]["pool"]["max_size"]
    assert during["playground_database_pool_requests_total"] > before["playground_database_pool_requests_total"]
    assert 1 <= during["playground_database_pool_in_use"] <= during["playground_database_pool_connections"]
    assert (
        during["playground_database_pool_in_use"] + during["playground_database_pool_idle"]
        == during["playground_database_pool_connections"]
    )
    assert during["playground_database_pool_waiting"] == 0
    assert {"playground_database_pool_errors_total", "playground_database_pool_queued_total"} <= set(during)


def test_no_pool_metrics_without_the_pool(client):
    """SQLite (or DATABASE_POOL_MAX_SIZE=0): nothing to report, and the rest of /metrics still answers."""
    from django.db import connections

    if connections["default"].settings_dict.get("OPTIONS", {}).get("pool"):
        pytest.skip("the default database has a pool here")
    metrics = samples(client.get("/metrics", REMOTE_ADDR="127.0.0.1"))
    assert pool_samples(metrics) == {}
    assert any(name == "playground_evaluation_workers_alive" for name, _ in metrics)
