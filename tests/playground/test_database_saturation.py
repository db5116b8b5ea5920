"""A request that finds no free database connection is told to come back (503, Retry-After), never a 500.

The exceptions are real: psycopg_pool's PoolTimeout from a real pool whose server never answers, and the
django.db OperationalError Django's own error wrapper makes of it (what a query raises on PostgreSQL)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import psycopg
import pytest
from django.db.utils import DatabaseErrorWrapper, OperationalError
from django.http import HttpResponse
from django.test import Client
from psycopg_pool import ConnectionPool, PoolTimeout

from playground import error_pages
from playground.api.errors import exception_handler
from playground.api.middleware import ApiErrorMiddleware
from playground.core import outage
from playground.services import project_service
from tests.playground.live_server import free_port


@pytest.fixture(scope="module")
def pool_timeout() -> PoolTimeout:
    """What getconn raises when every connection stays taken (here: none can be made) for its timeout."""
    pool = ConnectionPool(
        f"host=127.0.0.1 port={free_port()} connect_timeout=1", min_size=0, max_size=1, open=False, reconnect_timeout=1
    )
    pool.open(wait=False)
    try:
        with pytest.raises(PoolTimeout) as caught:
            pool.getconn(timeout=0.05)
    finally:
        pool.close(timeout=1)
    return caught.value


def django_wrapped(exc: Exception) -> OperationalError:
    """`exc` as Django's backend re-raises a psycopg error (its DatabaseErrorWrapper, `raise ... from exc`)."""
    with pytest.raises(OperationalError) as caught:
        with DatabaseErrorWrapper(SimpleNamespace(Database=psycopg)):
            raise exc
    return caught.value


TOO_MANY_CLIENTS = psycopg.OperationalError(
    'connection failed: connection to server at "127.0.0.1", port 5432 failed: FATAL:  sorry, too many clients already'
)
RESERVED_SLOTS = psycopg.OperationalError(
    "FATAL:  remaining connection slots are reserved for roles with the SUPERUSER attribute"
)


@pytest.fixture(params=["pool timeout", "pool timeout as django.db", "too many clients", "reserved slots"])
def saturated(request, pool_timeout) -> Exception:
    return {
        "pool timeout": pool_timeout,
        "pool timeout as django.db": django_wrapped(pool_timeout),
        "too many clients": django_wrapped(TOO_MANY_CLIENTS),
        "reserved slots": RESERVED_SLOTS,
    }[request.param]


def assert_busy(response, json_body: bool = True) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == str(outage.RETRY_AFTER_SECONDS)
    if json_body:
        body = response.data if hasattr(response, "data") else json.loads(response.content)
        assert body["error"]["code"] == "unavailable"
        assert "capacity" in body["error"]["message"]


def test_a_full_pool_or_server_is_saturation_and_an_outage(saturated):
    assert outage.is_saturated(saturated) and outage.is_outage(saturated)


def test_other_errors_are_not_saturation():
    lost = django_wrapped(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert outage.is_outage(lost) and not outage.is_saturated(lost)
    assert not outage.is_saturated(ValueError("too many clients already"))  # not a database error
    assert not outage.is_outage(ValueError("x"))


def test_drf_answers_saturation_with_503_and_retry_after(saturated):
    assert_busy(exception_handler(saturated, {"view": None}))


def test_a_lost_database_is_503_unavailable_too_not_500():
    response = exception_handler(django_wrapped(psycopg.OperationalError("server closed the connection")), {})
    assert response.status_code == 503 and response["Retry-After"]
    assert response.data["error"]["code"] == "unavailable" and "reconnecting" in response.data["error"]["message"]


def test_a_page_views_saturation_is_the_503_page(rf, saturated):
    middleware = error_pages.PageNotFoundMiddleware(lambda request: HttpResponse())
    page = middleware.process_exception(rf.get("/p/abc"), saturated)
    assert_busy(page, json_body=False)
    assert "The server is busy" in page.content.decode() and "capacity" in page.content.decode()
    assert_busy(middleware.process_exception(rf.get("/api/v1/mcp-ish"), saturated))


def test_handler500_answers_saturation_raised_outside_a_view_with_503(rf, saturated):
    """Django calls handler500 inside the `except` of what failed (a middleware, say): it looks there."""
    try:
        raise saturated
    except Exception:
        assert_busy(error_pages.server_error(rf.get("/api/v1/projects")))
        assert_busy(error_pages.server_error(rf.get("/p/abc")), json_body=False)
    assert error_pages.server_error(rf.get("/p/abc")).status_code == 500  # outside one: a crash as before


def test_the_api_middleware_keeps_retry_after_on_a_503_it_turns_into_json(rf):
    def busy_html(request):
        response = HttpResponse("<p>busy</p>", status=503)
        response["Retry-After"] = "2"
        return response

    response = ApiErrorMiddleware(busy_html)(rf.get("/api/v1/anything"))
    assert response.status_code == 503 and response["Retry-After"] == "2"
    assert json.loads(response.content)["error"]["code"] == "unavailable"


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/v1/projects/abc", "/p/abc"])
def test_a_request_whose_query_finds_the_pool_full_is_503_end_to_end(monkeypatch, pool_timeout, url):
    """Through Django's whole handler (middleware, DRF, handler500) as a server runs it (errors not re-raised)."""

    def no_connection(*args, **kwargs):
        raise django_wrapped(pool_timeout)

    monkeypatch.setattr(project_service, "project_state", no_connection)
    response = Client(raise_request_exception=False).get(url)
    assert_busy(response, json_body=url.startswith("/api/"))
