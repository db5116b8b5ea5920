"""A workshop under load: one teacher and 60 students over WebSockets, two server processes, Redis layer.

Starts two daphne processes on 127.0.0.1 (REDIS_URL set, so rooms span both; a fresh PostgreSQL database
they share, dropped afterwards), opens a room on the shipped `admission-basics` set, joins the students
through the REST API (alternating between the servers), connects the teacher to the first server, warms up
(one untimed edit each: the servers start their evaluation workers with the first student), then lets every
student edit their policy every 2 s for 60 s (--quick: 10 s), alternating a fixing and a breaking edit, each
text new (no cache hits). Measures:

- evaluation result: a student's edit sent → that student's `evaluation` of the edit's version;
- dashboard update: the same edit sent → the teacher's `progress` of that participant and version
  (often across processes through Redis).
Targets (issue 8): 0 errors, dashboard update p95 <= 300 ms, evaluation result p95 <= 150 ms.
`--runaway N` makes N students type an expression that exhausts the CEL cost budget on every edit; the
targets then apply to the other students. Bounded: every wait has a timeout, the whole run seconds + 120 s.

    .venv/bin/python bench/workshop_bench.py [--quick] [--students 60] [--seconds 60] [--runaway N] [--json]
      [--redis redis://127.0.0.1:6379/0] [--postgres postgres://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import psycopg
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ws_bench import free_port, summary  # noqa: E402  (the same percentile and port helpers)

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
STARTER = 'expression: "true"'
FIXED = "expression: object.spec.replicas <= 5"
_LIST = "[" + ",".join(str(i) for i in range(1, 21)) + "]"
# Runs out of the CEL cost budget after ~0.2 s of work per check: what a student's runaway looks like.
RUNAWAY = (
    'expression: "' + f'{_LIST}.all(a, {_LIST}.all(b, {_LIST}.all(c, {_LIST}.all(d, {_LIST}.all(e, a+b+c+d+e > 0)))))"'
)
BENCH_SERVER_ENV = dict(item.split("=", 1) for item in os.environ.get("BENCH_SERVER_ENV", "").split() if "=" in item)
TIMEOUT = 10.0  # seconds: an edit without its evaluation or dashboard update by then is an error


class Database:
    """A throw-away PostgreSQL database both servers share."""

    def __init__(self, admin_url: str):
        self.admin_url = admin_url
        self.name = f"workshop_bench_{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> str:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self.admin_url.rsplit("/", 1)[0] + "/" + self.name

    def __exit__(self, *exc) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Servers:
    """`count` daphne processes on free loopback ports; each stopped (its process group) on exit."""

    def __init__(self, count: int, database_url: str, redis_url: str):
        self.tmp = tempfile.TemporaryDirectory(prefix="workshop-bench-")
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "WARNING",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-key",
            **BENCH_SERVER_ENV,
        }
        self.ports = [free_port() for _ in range(count)]
        self.processes: list[subprocess.Popen] = []

    def __enter__(self) -> "Servers":
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        subprocess.run(
            [PYTHON, "manage.py", "load_workshops"], cwd=ROOT, env=self.env, check=True, stdout=subprocess.DEVNULL
        )
        for port in self.ports:
            log = open(Path(self.tmp.name) / f"daphne-{port}.log", "w")
            self.processes.append(
                subprocess.Popen(
                    [
                        str(Path(PYTHON).parent / "daphne"),
                        "-b",
                        "127.0.0.1",
                        "-p",
                        str(port),
                        "playground.asgi:application",
                    ],
                    cwd=ROOT,
                    env=self.env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        for port, process in zip(self.ports, self.processes):
            deadline = time.monotonic() + 30
            while True:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"daphne on {port} did not start: see {self.tmp.name}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                        break
                except OSError:
                    time.sleep(0.2)
        return self

    def __exit__(self, *exc) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        self.tmp.cleanup()

    def log_tails(self, lines: int = 60) -> str:
        """The first lines of each server log that are not access-log lines (tracebacks, warnings)."""

        def noteworthy(path: Path) -> list[str]:
            return [
                line
                for line in path.read_text().splitlines()
                if '"WS' not in line and '"GET' not in line and '"POST' not in line
            ][:lines]

        return "\n".join(
            f"== {path.name}\n" + "\n".join(noteworthy(path))
            for path in sorted(Path(self.tmp.name).glob("daphne-*.log"))
        )

    def post(self, index: int, path: str, body: dict) -> dict:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.ports[index]}{path}",
            method="POST",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def ws(self, index: int, path: str) -> str:
        return f"ws://127.0.0.1:{self.ports[index]}{path}"

    def origin(self, index: int) -> str:
        return f"http://127.0.0.1:{self.ports[index]}"


class Run:
    """What the clients saw: send times of edits, latencies, errors."""

    def __init__(self):
        self.sent: dict[tuple[int, int], float] = {}  # (participant, version) -> perf_counter at send
        self.evaluation_ms: list[float] = []
        self.ack_ms: list[float] = []  # edit sent -> saved (the database part of the evaluation result)
        self.engine_ms: list[float] = []  # the server's own time in the engine (evaluation.ms)
        self.runaway_ms: list[float] = []  # the runaway students' own evaluation results (not in the targets)
        self.dashboard_ms: list[float] = []
        self.dashboard_seen: dict[tuple[int, int], float] = {}  # (participant, version) -> perf_counter at arrival
        self.waiting_dashboard: dict[tuple[int, int], asyncio.Future] = {}
        self.errors: list[str] = []
        self.edits = 0


async def teacher(servers: Servers, room: dict, run: Run, ready: asyncio.Event, stop: asyncio.Event) -> None:
    path = f"/ws/rooms/{room['code']}/teacher/"
    async with connect(servers.ws(0, path), origin=servers.origin(0), max_size=None, open_timeout=30) as ws:
        await ws.send(json.dumps({"type": "hello", "token": room["teacherToken"]}))  # never in the URL
        ready.set()
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            if message["type"] == "error":
                run.errors.append(f"teacher: {message['error']}")
            elif message["type"] == "progress":
                key = (message["participant"], message.get("version"))
                run.dashboard_seen.setdefault(key, time.perf_counter())  # may arrive before the student's ack
                future = run.waiting_dashboard.pop(key, None)
                if future is not None and not future.done():
                    future.set_result(run.dashboard_seen[key])


async def student(
    servers: Servers,
    index: int,
    joined: dict,
    room: dict,
    run: Run,
    seconds: float,
    rng: random.Random,
    warmed: asyncio.Event,
    all_warm: asyncio.Event,
    runaway: bool = False,
) -> None:
    server = index % len(servers.ports)
    path = f"/ws/rooms/{room['code']}/student/"
    participant = joined["participant"]["id"]
    try:
        async with connect(
            servers.ws(server, path), origin=servers.origin(server), max_size=None, open_timeout=30
        ) as ws:

            async def until(predicate):
                async with asyncio.timeout(TIMEOUT):
                    while True:
                        message = json.loads(await ws.recv())
                        if message["type"] == "error":
                            run.errors.append(f"student {index}: {message['error']}")
                        if predicate(message):
                            return message

            await ws.send(json.dumps({"type": "hello", "token": joined["token"]}))  # never in the URL
            welcome = await until(lambda m: m["type"] == "welcome")
            document = welcome["fork"]["project"]["documents"][0]
            await until(lambda m: m["type"] == "evaluation")
            # Warm-up, not timed: one edit each (the servers' evaluation workers start with the first student).
            await ws.send(
                json.dumps(
                    {
                        "type": "edit",
                        "target": "document",
                        "id": document["id"],
                        "clientSeq": 0,
                        "text": document["text"] + "# warm-up\n",
                    }
                )
            )
            await until(lambda m: m["type"] == "evaluation" and m["version"] > welcome["fork"]["project"]["version"])
            warmed.set()
            await all_warm.wait()
            await asyncio.sleep(rng.uniform(0, 2.0))  # students do not type in lockstep
            end = time.monotonic() + seconds
            n = 0
            while time.monotonic() < end:
                started_wall = time.monotonic()
                n += 1
                base = document["text"].replace(STARTER, RUNAWAY if runaway else FIXED if n % 2 else STARTER)
                text = f"{base}# edit {n} of student {index}\n"
                started = time.perf_counter()
                await ws.send(
                    json.dumps(
                        {"type": "edit", "target": "document", "id": document["id"], "text": text, "clientSeq": n}
                    )
                )
                ack = await until(lambda m: m["type"] == "ack" and m["clientSeq"] == n)
                version = ack["version"]
                run.ack_ms.append((time.perf_counter() - started) * 1000)
                dashboard = asyncio.get_running_loop().create_future()
                if (participant, version) in run.dashboard_seen:
                    dashboard.set_result(run.dashboard_seen[(participant, version)])
                else:
                    run.waiting_dashboard[(participant, version)] = dashboard
                evaluation = await until(lambda m: m["type"] == "evaluation" and m["version"] == version)
                if runaway:
                    run.runaway_ms.append((time.perf_counter() - started) * 1000)
                else:
                    run.evaluation_ms.append((time.perf_counter() - started) * 1000)
                    run.engine_ms.append(evaluation["ms"])
                want = n % 2 == 1 and not runaway
                if evaluation["progress"]["complete"] is not want:
                    run.errors.append(f"student {index}: edit {n} judged complete={evaluation['progress']['complete']}")
                try:
                    seen = await asyncio.wait_for(dashboard, TIMEOUT)
                    if not runaway:
                        run.dashboard_ms.append((seen - started) * 1000)
                except TimeoutError:
                    run.errors.append(f"student {index}: no dashboard update for version {version}")
                run.edits += 1
                await asyncio.sleep(max(0.0, 2.0 - (time.monotonic() - started_wall)))
    except Exception as exc:  # a dropped connection or a timeout is an error of the run, not a crash
        run.errors.append(f"student {index}: {type(exc).__name__}: {exc}")


async def loop_lag(run: Run, stop: asyncio.Event) -> None:
    """How late this client's own event loop wakes up: a busy client delays what it measures."""
    run.lag_ms = []
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.05)
        run.lag_ms.append((time.perf_counter() - started - 0.05) * 1000)


async def workshop(servers: Servers, students: int, seconds: float, runaways: int = 0) -> dict:
    room = servers.post(0, "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "bench"})
    joined = [
        servers.post(
            i % len(servers.ports), f"/api/v1/workshops/rooms/{room['code']}/join", {"displayName": f"student {i}"}
        )
        for i in range(students)
    ]
    run = Run()
    ready, stop = asyncio.Event(), asyncio.Event()
    watcher = asyncio.create_task(teacher(servers, room, run, ready, stop))
    lag = asyncio.create_task(loop_lag(run, stop))
    await asyncio.wait_for(ready.wait(), 30)
    rng = random.Random(8)
    started = time.monotonic()
    warmed = [asyncio.Event() for _ in joined]
    all_warm = asyncio.Event()

    async def start_together() -> None:
        await asyncio.gather(*(event.wait() for event in warmed))
        await asyncio.sleep(2.0)  # let the servers settle after the warm-up
        all_warm.set()

    async with asyncio.timeout(seconds + 120):  # bounded even if a server stalls
        starter = asyncio.create_task(start_together())
        await asyncio.gather(
            *(
                student(servers, i, j, room, run, seconds, rng, warmed[i], all_warm, runaway=i < runaways)
                for i, j in enumerate(joined)
            )
        )
        starter.cancel()
    stop.set()
    await watcher
    await lag
    return {
        "students": students,
        "servers": len(servers.ports),
        "seconds": seconds,
        "wall_s": round(time.monotonic() - started, 1),
        "edits": run.edits,
        "evaluation_result_ms": summary(run.evaluation_ms),
        "dashboard_update_ms": summary(run.dashboard_ms),
        "edit_to_ack_ms": summary(run.ack_ms),
        "server_engine_ms": summary(run.engine_ms),
        "client_loop_lag_ms": summary(run.lag_ms),
        "runaway_students": runaways,
        "runaway_evaluation_ms": summary(run.runaway_ms),
        "errors": len(run.errors),
        "error_samples": run.errors[:5],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 s instead of 60 s")
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("BENCH_POSTGRES_URL") or "postgres://postgres@127.0.0.1:5432/postgres",
        help="an admin URL: the bench creates and drops its own database there",
    )
    parser.add_argument(
        "--runaway",
        type=int,
        default=0,
        metavar="N",
        help="N of the students type an expression that exhausts the CEL cost budget on every edit; "
        "the targets apply to the others",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seconds = args.seconds or (10.0 if args.quick else 60.0)
    with Database(args.postgres) as database_url, Servers(args.servers, database_url, args.redis) as servers:
        report = asyncio.run(workshop(servers, args.students, seconds, args.runaway))
        if report["errors"]:
            print(servers.log_tails(), file=sys.stderr)
    ok = (
        report["errors"] == 0
        and report["dashboard_update_ms"].get("p95", 1e9) <= 300
        and report["evaluation_result_ms"].get("p95", 1e9) <= 150
    )
    report["targets_met"] = ok
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"workshop: 1 teacher + {report['students']} students on {report['servers']} servers (Redis layer), "
            f"{report['seconds']} s, {report['edits']} edits, wall {report['wall_s']} s"
        )
        print(f"  evaluation result ms {report['evaluation_result_ms']}  (target p95 <= 150)")
        print(f"  dashboard update ms  {report['dashboard_update_ms']}  (target p95 <= 300)")
        print(
            f"  (of which edit -> ack {report['edit_to_ack_ms']}, server engine {report['server_engine_ms']}, "
            f"client loop lag {report['client_loop_lag_ms']})"
        )
        if args.runaway:
            print(
                f"  runaway students: {args.runaway}, their own evaluation result ms {report['runaway_evaluation_ms']}"
            )
        print(f"  errors {report['errors']} {report['error_samples']}")
        print(f"  targets {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
