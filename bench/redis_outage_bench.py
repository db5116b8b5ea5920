"""A Redis outage in the middle of a workshop: 60 students editing, Redis stopped for 8 s, then started again.

Starts its own redis-server on a free port (never the shared one), a fresh PostgreSQL database and two
daphne processes on both (workshop_bench's Database and Servers), opens a room, joins the students through
REST and connects the teacher to the first server. Every student edits its policy every 2 s over a client that behaves as the
pages' ReconnectingSocket does (static/src/socket.js: backoff from 250 ms doubling up to 2 s, ±25% jitter,
reset by the first message that is not an error) and, like the pages' edit queue, sends an unacknowledged
edit again after a reconnect. A prober reads and writes a project over REST on both servers every 0.25 s.
After --before seconds Redis is stopped for --outage seconds, then started again on the same port (empty:
nothing saved), and the students go on for --after seconds. Measures:

- close codes the clients saw (target: no 1011 — 4503 after an `unavailable` error is the protocol's way);
- HTTP 500s, of the prober and in the servers' access logs (target 0), and tracebacks in the logs (target 0);
- time from Redis answering again until every student has a live room again (`welcome`), and the teacher
  a dashboard (target <= 5 s);
- acknowledged edits lost: at the end every student's document in the database must hold the text of its
  last acknowledged edit (target 0).

    .venv/bin/python bench/redis_outage_bench.py [--quick] [--students 60] [--before 10] [--outage 8] [--after 15]
      [--json]
      [--postgres postgres://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workshop_bench import FIXED, STARTER, Database, Servers  # noqa: E402  (the same servers and database)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.playground.live_server import PrivateRedis  # noqa: E402  (a redis-server of this run only)

EDIT_EVERY_SECONDS = 2.0
PROBE_EVERY_SECONDS = 0.25


def backoff(attempt: int) -> float:
    """The pages' reconnect delay (static/src/socket.js), in seconds."""
    return min(2.0, 0.25 * 2**attempt) * random.uniform(0.75, 1.25)


class Run:
    def __init__(self, students: int) -> None:
        self.closes: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()  # `error` codes the clients got
        self.unavailable_at: list[float] = []  # monotonic times of the `unavailable` errors
        self.failures: list[str] = []  # what went wrong in a client itself
        self.http: collections.Counter[int] = collections.Counter()
        self.welcomes: list[list[float]] = [[] for _ in range(students)]  # monotonic times of each `welcome`
        self.last_acked: list[str | None] = [None] * students
        self.fork: list[dict] = [{} for _ in range(students)]
        self.dashboards: list[float] = []  # monotonic times of the teacher's `dashboard` messages
        self.acked = 0
        self.resent = 0
        self.stopping = asyncio.Event()


def close_code(exc: BaseException) -> str:
    if isinstance(exc, ConnectionClosed):
        return str(exc.rcvd.code) if exc.rcvd is not None else "1006 (no close frame)"
    if isinstance(exc, InvalidStatus):
        return f"HTTP {exc.response.status_code}"
    return type(exc).__name__


async def student(servers: Servers, index: int, joined: dict, room: dict, run: Run) -> None:
    """Edit every EDIT_EVERY_SECONDS; reconnect as the page does; resend what was not acknowledged."""
    server = index % len(servers.ports)
    url = servers.ws(server, f"/ws/rooms/{room['code']}/student/")
    attempt = n = 0
    pending: tuple[int, str] | None = None  # (clientSeq, text) sent, not acknowledged yet
    document: dict = {}
    while not (run.stopping.is_set() and pending is None):
        try:
            async with connect(
                url, origin=servers.origin(server), max_size=None, open_timeout=10, ping_interval=None
            ) as ws:
                await send(ws, {"type": "hello", "token": joined["token"]})
                next_edit = time.monotonic() + random.uniform(0, EDIT_EVERY_SECONDS)
                while True:
                    if run.stopping.is_set() and pending is None and document:
                        return
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, next_edit - time.monotonic())))
                    except TimeoutError:
                        message = None
                    if message is not None:
                        if message["type"] != "error":
                            attempt = 0
                        if message["type"] == "error":
                            run.errors[message["error"]["code"]] += 1
                            run.unavailable_at.append(time.monotonic())
                        elif message["type"] == "welcome":
                            run.welcomes[index].append(time.monotonic())
                            run.fork[index] = message["fork"]
                            document = message["fork"]["project"]["documents"][0]
                            if pending is not None:  # the edit queue sends it again after a reconnect
                                run.resent += 1
                                await send_edit(ws, document, *pending)
                        elif message["type"] == "ack" and pending is not None and message["clientSeq"] == pending[0]:
                            run.last_acked[index] = pending[1]
                            run.acked += 1
                            pending = None
                    if document and time.monotonic() >= next_edit:
                        next_edit = time.monotonic() + EDIT_EVERY_SECONDS
                        if pending is None and not run.stopping.is_set():
                            n += 1
                            base = document["text"].replace(STARTER, FIXED if n % 2 else STARTER)
                            pending = (n, f"{base}# edit {n} of student {index}\n")
                            await send_edit(ws, document, *pending)
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError) as exc:
            run.closes[close_code(exc)] += 1
        except Exception as exc:  # a bug of this client: counted, and the student goes on
            run.failures.append(f"student {index}: {type(exc).__name__}: {exc}")
        await asyncio.sleep(backoff(attempt))
        attempt += 1


async def send_edit(ws, document: dict, seq: int, text: str) -> None:
    await send(ws, {"type": "edit", "target": "document", "id": document["id"], "text": text, "clientSeq": seq})


async def send(ws, message: dict) -> None:
    """Send; a socket the server already closed is read to its end by the caller's next recv (as a page reads
    the `error` that came before the close)."""
    try:
        await ws.send(json.dumps(message))
    except ConnectionClosed:
        pass


async def teacher(servers: Servers, room: dict, run: Run) -> None:
    """The teacher's dashboard on the first server, reconnecting as the page does."""
    url = servers.ws(0, f"/ws/rooms/{room['code']}/teacher/")
    attempt = 0
    while not run.stopping.is_set():
        try:
            async with connect(url, origin=servers.origin(0), max_size=None, open_timeout=10, ping_interval=None) as ws:
                await send(ws, {"type": "hello", "token": room["teacherToken"]})
                while not run.stopping.is_set():
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                    except TimeoutError:
                        continue
                    if message["type"] == "error":
                        run.errors[message["error"]["code"]] += 1
                        run.unavailable_at.append(time.monotonic())
                        continue
                    attempt = 0
                    if message["type"] == "dashboard":
                        run.dashboards.append(time.monotonic())
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError) as exc:
            run.closes[close_code(exc)] += 1
        except Exception as exc:
            run.failures.append(f"teacher: {type(exc).__name__}: {exc}")
        await asyncio.sleep(backoff(attempt))
        attempt += 1


def request(servers: Servers, index: int, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        f"http://127.0.0.1:{servers.ports[index]}{path}",
        data=data,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, {}


async def prober(servers: Servers, project: dict, run: Run, health: list) -> None:
    """REST reads and writes on both servers while the students edit, and /healthz."""
    n = 0
    while not run.stopping.is_set():
        n += 1
        index = n % len(servers.ports)
        path = f"/api/v1/projects/{project['id']}"
        for method, body in (("GET", None), ("PATCH", {"title": f"probe {n}"})):
            status, _ = await asyncio.to_thread(
                request, servers, index, method, path, body, {"X-Edit-Token": project["editToken"]}
            )
            run.http[status] += 1
        if n % 4 == 0:
            status, report = await asyncio.to_thread(request, servers, index, "GET", "/healthz")
            health.append((time.monotonic(), status, report.get("status")))
        await asyncio.sleep(PROBE_EVERY_SECONDS)


async def outage_run(servers: Servers, redis: PrivateRedis, args) -> dict:
    room = servers.post(0, "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "outage bench"})
    joined = [
        servers.post(
            i % len(servers.ports), f"/api/v1/workshops/rooms/{room['code']}/join", {"displayName": f"student {i}"}
        )
        for i in range(args.students)
    ]
    project = servers.post(0, "/api/v1/projects", {"title": "probe", "documents": [], "requests": []})
    run = Run(args.students)
    health: list = []
    clients = [asyncio.create_task(student(servers, i, j, room, run)) for i, j in enumerate(joined)]
    dashboard = asyncio.create_task(teacher(servers, room, run))
    probe = asyncio.create_task(prober(servers, project, run, health))
    async with asyncio.timeout(120):
        while sum(1 for w in run.welcomes if w) < args.students:
            await asyncio.sleep(0.1)
    await asyncio.sleep(args.before)
    acked_before = run.acked
    stopped = time.monotonic()
    await asyncio.to_thread(redis.stop)
    await asyncio.sleep(args.outage)
    await asyncio.to_thread(redis.start)
    back = time.monotonic()
    acked_during = run.acked - acked_before
    await asyncio.sleep(args.after)
    run.stopping.set()
    async with asyncio.timeout(60):  # every student's last edit acknowledged, then it leaves
        await asyncio.gather(*clients)
    await probe
    await dashboard

    # A student is back when it has a live room again: its first `welcome` after Redis answered (one that
    # was never dropped counts as back at once).
    back_after = [
        min((t for t in times if t >= back), default=float("inf")) - back if any(t >= stopped for t in times) else 0.0
        for times in [*run.welcomes, run.dashboards]
    ]
    lost = []
    for index, fork in enumerate(run.fork):  # read after the students left, so nothing is still in flight
        status, saved = await asyncio.to_thread(request, servers, 0, "GET", f"/api/v1/projects/{fork['project']['id']}")
        text = saved.get("documents", [{}])[0].get("text") if status == 200 else None
        if run.last_acked[index] is not None and text != run.last_acked[index]:
            lost.append(index)
    during = [s for t, s, _ in health if stopped <= t <= back]
    return {
        "students": args.students,
        "servers": len(servers.ports),
        "outage_s": args.outage,
        "close_codes": dict(run.closes),
        "closes_1011": run.closes.get("1011", 0),
        "error_codes": dict(run.errors),
        "http_statuses": {str(k): v for k, v in sorted(run.http.items())},
        "http_500s": sum(v for k, v in run.http.items() if k >= 500),
        "healthz_during_outage": sorted({f"{s}" for s in during}),
        "healthz_statuses": sorted({f"{s} {r}" for _, s, r in health}),
        "unavailable_after_back": sum(1 for t in run.unavailable_at if t >= back),
        "all_back_s": round(max(back_after), 2),
        "back_p50_s": round(sorted(back_after)[len(back_after) // 2], 2),
        "acked_edits": run.acked,
        "acked_during_outage": acked_during,
        "resent_after_reconnect": run.resent,
        "acked_edits_lost": len(lost),
        "client_failures": run.failures[:5],
    }


def log_findings(servers: Servers) -> dict:
    text = "\n".join(path.read_text(errors="replace") for path in Path(servers.tmp.name).glob("daphne-*.log"))
    lines = text.splitlines()
    return {
        "log_tracebacks": text.count("Traceback"),
        "log_500s": sum(1 for line in lines if '" 500 ' in line),
        "log_outage_warnings": sum(1 for line in lines if "unavailable (" in line),
        "log_samples": [line for line in lines if "unavailable (" in line][:3],
        "log_traceback_samples": [
            "\n".join(lines[max(0, i - 2) : i + 40]) for i, line in enumerate(lines) if "Traceback" in line
        ][:2],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 students, less editing around the same outage")
    parser.add_argument("--students", type=int, default=None)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--before", type=float, default=None, help="seconds of editing before it (10; --quick 4)")
    parser.add_argument("--outage", type=float, default=8.0, help="seconds Redis is down")
    parser.add_argument("--after", type=float, default=None, help="seconds of editing after it (15; --quick 8)")
    parser.add_argument(
        "--postgres",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="an admin URL: the bench creates and drops its own database there",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.students = args.students or (20 if args.quick else 60)
    args.before = args.before if args.before is not None else (4.0 if args.quick else 10.0)
    args.after = args.after if args.after is not None else (8.0 if args.quick else 15.0)
    redis = PrivateRedis()
    redis.start()
    try:
        with Database(args.postgres) as database_url, Servers(args.servers, database_url, redis.url) as servers:
            report = asyncio.run(outage_run(servers, redis, args))
            report.update(log_findings(servers))
    finally:
        redis.stop()
    report["targets_met"] = (
        report["closes_1011"] == 0
        and report["http_500s"] == 0
        and report["log_500s"] == 0
        and report["log_tracebacks"] == 0
        and report["all_back_s"] <= 5.0
        and report["acked_edits_lost"] == 0
        and not report["client_failures"]
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"redis outage: {report['students']} students on {report['servers']} servers, Redis down {args.outage} s")
        for key in (
            "close_codes",
            "closes_1011",
            "error_codes",
            "http_statuses",
            "http_500s",
            "log_500s",
            "log_tracebacks",
            "log_outage_warnings",
            "healthz_statuses",
            "unavailable_after_back",
            "all_back_s",
            "back_p50_s",
            "acked_edits",
            "acked_during_outage",
            "resent_after_reconnect",
            "acked_edits_lost",
            "client_failures",
            "log_samples",
            "log_traceback_samples",
        ):
            print(f"  {key}: {report[key]}")
        verdict = "met" if report["targets_met"] else "missed"
        print(f"  targets (no 1011, no 500, no traceback, all back <= 5 s, no acked edit lost): {verdict}")
    return 0 if report["targets_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
