"""More concurrent requests than database connections, against the server as deployed (daphne, PostgreSQL).

With a pool of 2 and a short wait for a slot, 40 clients at once get their answer or a 503 with Retry-After,
never a 500; WebSockets joining the room meanwhile get the room or an `unavailable` error, never an internal
one; the server never holds more than 2 sessions on its database; once the crowd is gone the idle
connections are closed. /metrics shows it: the pool's bound, the requests that queued and the ones that timed
out (at least one per 503), and no connection held once idle."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.playground.live_server import Daphne
from tests.playground.playground_fixtures import project_body

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

POOL_MAX = 2
CLIENTS = 40
ROUNDS = 4
SOCKETS = 10
CLOSED_BUSY = {"type": "closed", "code": 4503}


class Sessions(threading.Thread):
    """The most server sessions on `database` seen in pg_stat_activity, counted from the maintenance database."""

    def __init__(self, admin_url: str, database: str):
        super().__init__(daemon=True)
        self.admin_url, self.database = admin_url, database
        self.most = 0
        self.stopped = threading.Event()

    def count(self, conn: psycopg.Connection) -> int:
        # Client sessions only: autovacuum workers visit a busy database too, and are not the server's.
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            [self.database],
        ).fetchone()
        return row[0] if row else 0

    def run(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self.stopped.is_set():
                self.most = max(self.most, self.count(conn))
                self.stopped.wait(0.01)

    def now(self) -> int:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            return self.count(conn)


def call(base: str, method: str, path: str, body=None, headers=None) -> tuple[int, dict, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def pool_metrics(base: str) -> dict[str, float]:
    """The playground_database_pool_* samples of /metrics (served to loopback by default)."""
    status, _, body = call(base, "GET", "/metrics")
    assert status == 200
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
        if sample.name.startswith("playground_database_pool_")
    }


@pytest.fixture
def small_pool_server(tmp_path):
    server = Daphne(
        tmp_path,
        DATABASE_POOL_MIN_SIZE="0",
        DATABASE_POOL_MAX_SIZE=str(POOL_MAX),
        DATABASE_POOL_TIMEOUT="0.05",
        DATABASE_POOL_MAX_IDLE="1",
        PLAYGROUND_EVALUATION_RATE="100000/min",
    )
    try:  # stopped (and its database dropped) even when it fails to start
        server.migrate()
        server.start()
        yield server
    finally:
        server.stop()


def test_a_crowd_beyond_the_pool_gets_answers_or_503_and_sessions_stay_bounded(small_pool_server):
    server = small_pool_server
    assert server.postgres
    status, _, body = call(server.http, "POST", "/api/v1/projects", project_body())
    assert status == 201, body
    project = json.loads(body)
    pid, token = project["id"], {"X-Edit-Token": project["editToken"]}
    requests = [
        ("GET", f"/api/v1/projects/{pid}", None, None),
        ("PATCH", f"/api/v1/projects/{pid}", {"title": "Crowded"}, token),
        ("POST", f"/api/v1/projects/{pid}/evaluate", None, None),
        ("POST", "/api/v1/projects", project_body(), None),
        ("GET", f"/p/{pid}", None, None),  # a page: the plain Django path
    ]
    admin, database = server.postgres.rsplit("/", 1)
    sessions = Sessions(admin + "/postgres", database)
    sessions.start()

    def client(n: int) -> list[tuple[str, int, dict, bytes]]:
        answers = []
        for r in range(ROUNDS):
            method, path, body, headers = requests[(n + r) % len(requests)]
            answers.append((path, *call(server.http, method, path, body, headers)))
        return answers

    def socket(_: int) -> dict:
        """The room's first word to a socket joining it: its state, or an error."""
        with connect(f"{server.ws}/ws/projects/{pid}/", origin=server.http, open_timeout=30) as ws:
            try:
                while True:
                    message = json.loads(ws.recv(timeout=30))
                    if message["type"] in ("state", "error"):
                        return message
            except ConnectionClosed:
                return {"type": "closed", "code": ws.close_code}

    with ThreadPoolExecutor(CLIENTS + SOCKETS) as clients:
        joined = clients.map(socket, range(SOCKETS))
        answers = [answer for batch in clients.map(client, range(CLIENTS)) for answer in batch]
        first_words = list(joined)
    sessions.stopped.set()
    sessions.join()

    statuses = sorted({status for _, status, _, _ in answers})
    assert set(statuses) <= {200, 201, 503}, [(p, s, b[:300]) for p, s, _, b in answers if s not in (200, 201, 503)]
    busy = [(path, headers, body) for path, status, headers, body in answers if status == 503]
    assert busy and len(busy) < len(answers), statuses  # the crowd did exceed the pool, and was served
    for path, headers, body in busy:
        assert int(headers["Retry-After"]) > 0
        if path.startswith("/api/"):
            assert json.loads(body)["error"]["code"] == "unavailable"
        else:
            assert b"The server is busy" in body
    for word in first_words:  # an outage's answers (PROTOCOL.md): `unavailable`, or close code 4503 once joined
        assert word["type"] == "state" or word.get("error", {}).get("code") == "unavailable" or word == CLOSED_BUSY, (
            word
        )
    assert 0 < sessions.most <= POOL_MAX
    # No database error escaped as a crash (outage lines are one-line warnings, not tracebacks).
    crashes = server.log().split("Traceback (most recent call last):")[1:]
    assert not [crash for crash in crashes if "psycopg" in crash or "django/db" in crash], crashes[:1]

    deadline = time.monotonic() + 20  # idle beyond DATABASE_POOL_MAX_IDLE: the pool lets its connections go
    while sessions.now() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sessions.now() == 0

    pool = pool_metrics(server.http)
    assert pool["playground_database_pool_max"] == POOL_MAX
    assert pool["playground_database_pool_errors_total"] >= len(busy) > 0  # each 503 is a timed-out wait
    assert pool["playground_database_pool_queued_total"] >= pool["playground_database_pool_errors_total"]
    assert pool["playground_database_pool_requests_total"] >= len(answers) - len(busy)
    assert pool["playground_database_pool_wait_seconds_total"] > 0
    assert pool["playground_database_pool_waiting"] == 0
    # this scrape's batch query took a connection and gave it back: at most one open, none lent
    assert pool["playground_database_pool_connections"] <= 1 and pool["playground_database_pool_in_use"] <= 1
