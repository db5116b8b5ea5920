"""Live re-evaluation over a real WebSocket: keystroke-to-result latency and a workshop load.

Starts its own daphne on 127.0.0.1 (a fresh SQLite database in a temporary directory unless --postgres, which
creates -- and afterwards drops -- a PostgreSQL database of its own, never the one named in the URL; the in-memory channel layer unless --redis), forks the `workshop-reference` example (3 policies, 4 bindings, 3 params,
6 sample requests) and measures:

1. keystrokes: one client types into the project at ~8 characters a second, each keystroke an `edit`;
   the time from sending it to the `done` of its version (policy edits re-evaluate all 6 requests) or to
   the one `result` it changes (request edits), and the server's own `done.ms`. Target p95 <= 25 ms.
2. workshop: 100 clients, each on its own fork, all connected first, then one edit every 2 s each (--every)
   for 60 s (--quick: 10 s), each participant typing its own text (no shared cache entries); time to `done` of
   each edit's version. Targets: 0 errors, p95 <= 150 ms, CPU per edit (server + workers) <= 6 ms. Bounded in
   count (seconds/every + 1 edits a client) and time.

Each client sends `hello {bundle: true}` as the page does, so an evaluation's messages come as one frame.
An edit is an `edit` message with the whole text (older clients, scripts), or with --push a co-editing `push`
of the change, as the page sends typing.
The client runs on the same machine as the server (loopback), so its CPU use counts against the server.
CPU per edit (workshop): the server process's and its evaluation workers' CPU over the workshop (connecting
included) over its edits, sampled every half second so that a worker recycled meanwhile still counts. With
--rounds N the workshop runs N times in a row on the same server, and the median round answers.

    .venv/bin/python bench/ws_bench.py [--quick] [--clients 100] [--seconds 60] [--keystrokes 120] [--json]
                                       [--postgres [URL]] [--redis [URL]] [--push] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from playground.collab.changes import between  # noqa: E402 (a push's change set, as CodeMirror's JSON)

PYTHON = sys.executable
EXAMPLE = "workshop-reference"
EDIT_TIMEOUT = 10.0  # seconds: an edit without its `done` by then counts as an error


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 0.95), 2),
        "max": round(max(values), 2),
    }


def _own_database(url: str) -> str:
    """`url` with a database name of this run's own (ws_bench_<pid>)."""
    from urllib.parse import urlsplit

    return urlsplit(url)._replace(path=f"/ws_bench_{os.getpid()}").geturl()


class Server:
    """daphne on a free loopback port, with its own database; stopped (whole process group) on exit."""

    start_seconds = 30  # until /healthz answers

    def __init__(self, redis_url: str | None, postgres_url: str | None = None, push: bool = False):
        self.tmp = tempfile.TemporaryDirectory(prefix="ws-bench-")
        self.push = push  # its clients edit with co-editing pushes, as the page does, instead of whole texts
        self.port = free_port()
        # --postgres names a server: the bench makes its own database there (never the one in the URL, which
        # may hold someone's data) and drops it afterwards.
        self.postgres_url = _own_database(postgres_url) if postgres_url else None
        database = self.postgres_url or f"sqlite:///{self.tmp.name}/bench.sqlite3"
        self.env = {
            **os.environ,
            "DATABASE_URL": database,
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "WARNING",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-key",
        }
        self.env.pop("REDIS_URL", None)
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        self.process: subprocess.Popen | None = None

    def _postgres(self, statement: str) -> None:
        """Run CREATE/DROP DATABASE on the server's maintenance database (a fresh database per run)."""
        import psycopg
        from urllib.parse import urlsplit

        parts = urlsplit(self.postgres_url)
        with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as connection:
            connection.execute(statement.format(name=parts.path.lstrip("/")))

    def __enter__(self) -> "Server":
        if self.postgres_url:
            self._postgres('DROP DATABASE IF EXISTS "{name}"')
            self._postgres('CREATE DATABASE "{name}"')
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        self.log = open(Path(self.tmp.name) / "daphne.log", "w")
        self.process = subprocess.Popen(
            self.daphne_command()
            + [
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "--websocket-max-message-size",
                "8388608",
                "--websocket-max-frame-size",
                "8388608",
                "playground.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.start_seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: see {self.log.name}")
            try:
                with urllib.request.urlopen(f"{self.http}/healthz", timeout=10) as response:
                    if response.status == 200:
                        self.wait_for_workers()
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not answer /healthz within {self.start_seconds} s")

    def daphne_command(self) -> list[str]:
        """How daphne is started (its arguments follow)."""
        profile = os.environ.get("WS_BENCH_PROFILE")  # a path: profile the server's main thread into it
        command = [str(Path(PYTHON).parent / "daphne")]
        if profile:
            command = [PYTHON, "-m", "cProfile", "-o", profile, command[0]]
        return command

    def database_sessions(self) -> int:
        """PostgreSQL sessions opened on the bench database so far (pg_stat_database.sessions); 0 on SQLite."""
        if not self.postgres_url:
            return 0
        import psycopg
        from urllib.parse import urlsplit

        parts = urlsplit(self.postgres_url)
        with psycopg.connect(parts._replace(path="/postgres").geturl()) as connection:
            row = connection.execute(
                "SELECT sessions FROM pg_stat_database WHERE datname = %s", (parts.path.lstrip("/"),)
            ).fetchone()
        return int(row[0]) if row else 0

    def wait_for_workers(self, seconds: float = 120) -> None:
        """One REST evaluation starts the evaluation workers; wait until each has warmed up (not measured)."""
        request = urllib.request.Request(
            f"{self.http}/api/v1/cel",
            data=b'{"expression": "1 + 1"}',
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=seconds):
            pass
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{self.http}/healthz", timeout=5) as response:
                workers = json.load(response).get("evaluation_workers", [])
            if workers and all(worker.get("ready") for worker in workers):
                return
            time.sleep(0.2)
        raise RuntimeError("the evaluation workers did not warm up")

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()
        self.tmp.cleanup()
        if self.postgres_url:
            self._postgres('DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def cpu_by_process(self) -> dict[int, float]:
        """CPU seconds so far of the server process and of each of its children, by pid."""

        def cpu(pid: int) -> float:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                return 0.0

        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == self.process.pid:
                    children.append(int(stat.parent.name))
            except (OSError, IndexError, ValueError):
                continue
        return {pid: cpu(pid) for pid in [self.process.pid, *children]}

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, project_id: str, token: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/projects/{project_id}/?token={token}"

    def fork_example(self) -> dict:
        request = urllib.request.Request(
            f"{self.http}/api/v1/examples/{EXAMPLE}/fork",
            data=b"",
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)


class Client:
    """One WebSocket participant: sends edits and waits for their version's messages."""

    def __init__(self, server: Server, project: dict):
        self.server = server
        self.project = project
        self.push = server.push
        # each text's content and co-editing version as the server holds them (a push is made on them)
        self.texts = {
            (target, item["id"]): (item["text"], item["collabVersion"])
            for target, key in (("document", "documents"), ("request", "requests"))
            for item in project[key]
        }
        self.seq = 0
        self.errors: list[str] = []
        self.ack_ms: list[float] = []
        self.backlog: collections.deque = collections.deque()  # messages of a bundle not yet looked at

    async def __aenter__(self) -> "Client":
        self.ws = await connect(
            self.server.ws(self.project["id"], self.project["editToken"]),
            origin=self.server.http,
            max_size=None,
            open_timeout=30,
        )
        # as the page does: each evaluation's messages in one frame, a result it has as `unchanged` (the initial
        # evaluation may come before this is read)
        await self.ws.send(
            json.dumps({"type": "hello", "version": self.project.get("version"), "bundle": True, "unchanged": True})
        )
        await self.until(lambda m: m["type"] == "done")  # the initial evaluation
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def until(self, predicate, timeout: float = EDIT_TIMEOUT) -> dict:
        async with asyncio.timeout(timeout):
            while True:
                if not self.backlog:
                    message = json.loads(await self.ws.recv())
                    self.backlog.extend(message["messages"] if message["type"] == "bundle" else [message])
                message = self.backlog.popleft()
                if message["type"] == "error":
                    self.errors.append(json.dumps(message["error"]))
                if predicate(message):
                    return message

    async def edit(self, target: str, item: dict, text: str, wait_for: str) -> tuple[float, float | None]:
        """Send one edit; (client-observed ms to the awaited message, server `done.ms` when awaited)."""
        self.seq += 1
        started = time.perf_counter()
        old, collab_version = self.texts[(target, item["id"])]
        if self.push:  # as the page sends typing: the change, on the version it was made on
            update = {"changes": between(old, text), "clientID": f"bench-{self.project['id']}"}
            message = {"type": "push", "version": collab_version, "updates": [update]}
        else:
            message = {"type": "edit", "text": text}
        await self.ws.send(json.dumps({**message, "target": target, "id": item["id"], "clientSeq": self.seq}))
        ack = await self.until(lambda m: m["type"] == "ack" and m["clientSeq"] == self.seq)
        self.texts[(target, item["id"])] = (text, ack.get("collabVersion"))
        self.ack_ms.append((time.perf_counter() - started) * 1000)
        version = ack["version"]
        if wait_for == "result":
            await self.until(
                lambda m: m["type"] == "result" and m["version"] == version and m["request"]["id"] == item["id"]
            )
            return (time.perf_counter() - started) * 1000, None
        done = await self.until(lambda m: m["type"] == "done" and m["version"] == version)
        return (time.perf_counter() - started) * 1000, done["ms"]


def typed_versions(text: str, anchor: str, typing: str) -> list[str]:
    """The text after each keystroke of `typing` inserted after `anchor`."""
    at = text.index(anchor) + len(anchor)
    return [text[:at] + typing[:n] + text[at:] for n in range(1, len(typing) + 1)]


async def keystrokes(server: Server, count: int) -> dict:
    project = server.fork_example()
    policies = project["documents"][0]
    request = project["requests"][1]
    phrase = " (ask the platform team for an exception)" * 10
    policy_texts = typed_versions(policies["text"], "a team label is required", phrase)[: count // 2]
    request_texts = typed_versions(request["text"], "name: web", "-frontend-service-v2" * 10)[: count - count // 2]
    policy_ms, server_ms, request_ms = [], [], []
    async with Client(server, project) as client:
        for text in policy_texts:
            started = time.perf_counter()
            ms, done_ms = await client.edit("document", policies, text, "done")
            policy_ms.append(ms)
            server_ms.append(done_ms)
            await asyncio.sleep(max(0.0, 0.125 - (time.perf_counter() - started)))  # ~8 keystrokes a second
        for text in request_texts:
            started = time.perf_counter()
            request_ms.append((await client.edit("request", request, text, "result"))[0])
            await asyncio.sleep(max(0.0, 0.125 - (time.perf_counter() - started)))
        errors = client.errors
    return {
        "policy_edit_to_done_ms": summary(policy_ms),
        "server_done_ms": summary(server_ms),
        "request_edit_to_result_ms": summary(request_ms),
        "errors": len(errors),
        "error_samples": errors[:3],
    }


class Barrier:
    """Start the edits once every participant is connected (the load is 100 *connected* clients editing)."""

    def __init__(self, parties: int):
        self.waiting = parties
        self.event = asyncio.Event()

    async def arrive(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.event.set()
        await self.event.wait()


async def participant(
    server: Server,
    project: dict,
    seconds: float,
    latencies: list,
    server_ms: list,
    errors: list,
    rng: random.Random,
    acks: list,
    barrier: Barrier,
    every: float,
) -> None:
    arrived = False
    try:
        async with Client(server, project) as client:
            policies, request = project["documents"][0], project["requests"][0]
            arrived = True
            await barrier.arrive()
            await asyncio.sleep(rng.uniform(0, every))  # participants do not type in lockstep
            end = time.monotonic() + seconds
            n = rng.randrange(2)  # half start with a policy edit, half with a request edit
            max_edits = n + int(seconds // every) + 1
            while time.monotonic() < end and n < max_edits:
                started = time.monotonic()
                n += 1
                if n % 2:  # each participant types something of their own (no shared cache entries)
                    text = policies["text"].replace(
                        "a team label is required", f"a team label is required ({project['id']} {n})"
                    )
                    ms, done_ms = await client.edit("document", policies, text, "done")
                else:
                    text = request["text"].replace("name: web", f"name: web-{project['id']}-{n}")
                    ms, done_ms = await client.edit("request", request, text, "done")
                latencies.append((started, ms))
                server_ms.append(done_ms)
                await asyncio.sleep(max(0.0, every - (time.monotonic() - started)))
            errors.extend(client.errors)
            acks.extend(client.ack_ms)
    except Exception as exc:  # a dropped connection or a timeout is an error of the run, not a crash
        errors.append(f"{type(exc).__name__}: {exc}")
        if not arrived:
            await barrier.arrive()


class CPUMeter:
    """CPU used by the server and its workers over a period, sampled every half second: a worker recycled
    (replaced) meanwhile keeps the CPU it used until its last sample, and its successor's counts from its
    start. Reading the totals only at both ends would lose a replaced worker's whole share."""

    def __init__(self, server: Server):
        self.server = server
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def sample(self) -> None:
        for pid, seconds in self.server.cpu_by_process().items():
            self.last[pid] = max(seconds, self.last.get(pid, 0.0))

    async def run(self) -> None:
        self.sample()
        self.first = dict(self.last)
        while True:
            await asyncio.sleep(0.5)
            self.sample()

    def used(self) -> dict:
        self.sample()
        used = {pid: seconds - self.first.get(pid, 0.0) for pid, seconds in self.last.items()}
        server = used.pop(self.server.process.pid, 0.0)
        return {"server": server, "workers": sum(used.values())}


async def workshop(server: Server, clients: int, seconds: float, every: float) -> dict:
    projects = [server.fork_example() for _ in range(clients)]
    timed: list[tuple[float, float]] = []
    acks: list[float] = []
    server_ms: list[float] = []
    errors: list[str] = []
    rng = random.Random(4)
    barrier = Barrier(len(projects))
    meter = CPUMeter(server)
    sampling = asyncio.create_task(meter.run())
    await asyncio.sleep(0)  # the first sample before any edit
    sessions_before = server.database_sessions()
    started = time.monotonic()

    async def when_connected() -> dict:
        await barrier.event.wait()
        return meter.used()

    connected = asyncio.create_task(when_connected())
    async with asyncio.timeout(seconds + 90):  # bounded even if the server stalls
        await asyncio.gather(
            *(participant(server, p, seconds, timed, server_ms, errors, rng, acks, barrier, every) for p in projects)
        )
    sampling.cancel()
    cpu_used = meter.used()
    cpu_connecting = await connected
    sessions = server.database_sessions() - sessions_before
    latencies = [ms for _, ms in timed]
    cpu_ms_per_edit = {part: round(seconds * 1000 / max(1, len(timed)), 2) for part, seconds in cpu_used.items()}
    per_window = {}  # p95 per 5-second window of the editing period
    first = min((at for at, _ in timed), default=started)
    for at, ms in timed:
        per_window.setdefault(int((at - first) // 5) * 5, []).append(ms)
    return {
        "clients": clients,
        "seconds": seconds,
        "every_s": every,
        "wall_s": round(time.monotonic() - started, 1),
        "edits": len(latencies),
        "edit_to_done_ms": summary(latencies),
        "server_done_ms": summary(server_ms),
        "edit_to_ack_ms": summary(acks),
        "server_cpu_ms_per_edit": cpu_ms_per_edit,
        # of which the 100 connections (each with its first evaluation), before any edit
        "connecting_cpu_ms_per_edit": {
            part: round(seconds * 1000 / max(1, len(timed)), 2) for part, seconds in cpu_connecting.items()
        },
        "database_connections_per_edit": round(sessions / max(1, len(timed)), 3) if server.postgres_url else None,
        "load_average": os.getloadavg(),
        "p95_by_5s_window": {f"{k}s": round(percentile(v, 0.95), 1) for k, v in sorted(per_window.items())},
        "errors": len(errors),
        "error_samples": errors[:3],
    }


def median_round(rounds: list[dict]) -> dict:
    """The round whose CPU an edit (server + workers) is the median, with every round's total and the rounds'
    median p95 beside it (one round: that round)."""
    totals = [round(sum(r["server_cpu_ms_per_edit"].values()), 2) for r in rounds]
    middle = sorted(range(len(rounds)), key=lambda i: totals[i])[len(rounds) // 2]
    p95s = sorted(r["edit_to_done_ms"]["p95"] for r in rounds)
    return {
        **rounds[middle],
        "rounds_cpu_ms_per_edit": totals,
        "rounds_p95_ms": [r["edit_to_done_ms"]["p95"] for r in rounds],
        "median_p95_ms": p95s[len(p95s) // 2],
        "errors": sum(r["errors"] for r in rounds),
        "error_samples": [sample for r in rounds for sample in r["error_samples"]][:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10 s workshop and 40 keystrokes")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between one client's edits")
    parser.add_argument("--keystrokes", type=int, default=None)
    parser.add_argument(
        "--redis",
        nargs="?",
        const="redis://127.0.0.1:6379/0",
        default=None,
        help="REDIS_URL for the channel layer and cache (default: in-memory)",
    )
    parser.add_argument(
        "--postgres",
        nargs="?",
        const="postgres://postgres@127.0.0.1:5432/ws_bench",
        default=None,
        help="a PostgreSQL server URL: the bench creates a database of its own there (ws_bench_<pid>) and drops "
        "it afterwards; the URL's own database is never touched (default: SQLite)",
    )
    parser.add_argument(
        "--push",
        action="store_true",
        help="edit as the page does, with co-editing pushes of each change, not `edit` messages of whole texts",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="workshops in a row on the same server (each on fresh forks): the CPU an edit and the p95 are the "
        "rounds' medians (a VM's speed drifts by a sixth within half an hour; one round cannot show a few per cent)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seconds = args.seconds or (10.0 if args.quick else 60.0)
    count = args.keystrokes or (40 if args.quick else 120)
    with Server(args.redis, args.postgres, args.push) as server:
        report = {
            "keystrokes": asyncio.run(keystrokes(server, count)),
            "workshop": median_round(
                [asyncio.run(workshop(server, args.clients, seconds, args.every)) for _ in range(max(1, args.rounds))]
            ),
            "channel_layer": "redis" if args.redis else "in-memory",
            "database": "postgresql" if args.postgres else "sqlite",
            "edits": "push" if args.push else "edit",
        }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        keys, shop = report["keystrokes"], report["workshop"]
        print(
            f"keystrokes ({report['database']}, {report['channel_layer']} layer, {report['edits']} messages): policy edit -> done {keys['policy_edit_to_done_ms']}, "
            f"server done.ms {keys['server_done_ms']}, request edit -> result {keys['request_edit_to_result_ms']}, "
            f"errors {keys['errors']}"
        )
        print(
            f"workshop: {shop['clients']} clients x {shop['seconds']} s, an edit every {shop['every_s']} s, {shop['edits']} edits, "
            f"edit -> done {shop['edit_to_done_ms']}, server done.ms {shop['server_done_ms']}, errors {shop['errors']}"
        )
        print(f"workshop edit -> ack {shop['edit_to_ack_ms']}; p95 by 5 s window: {shop['p95_by_5s_window']}")
        if shop["database_connections_per_edit"] is not None:
            print(f"workshop PostgreSQL connections opened per edit: {shop['database_connections_per_edit']}")
        print(
            f"workshop CPU ms per edit {shop['server_cpu_ms_per_edit']} (connections included: "
            f"{shop['connecting_cpu_ms_per_edit']}); "
            f"load average at the end {shop['load_average']}"
        )
        if len(shop["rounds_cpu_ms_per_edit"]) > 1:
            print(
                f"rounds: CPU ms per edit (server + workers) {shop['rounds_cpu_ms_per_edit']}, p95 "
                f"{shop['rounds_p95_ms']} ms; the median round is shown above (median p95 {shop['median_p95_ms']} ms)"
            )
        for sample in keys["error_samples"] + shop["error_samples"]:
            print("  error:", sample)
    keys, shop = report["keystrokes"], report["workshop"]
    # Issue 4's keystroke target is server-side (the server's own `done.ms`); the workshop one is end to end.
    ok = (
        keys["errors"] == 0
        and shop["errors"] == 0
        and keys["server_done_ms"]["p95"] <= 25
        and shop["median_p95_ms"] <= 150
        and sum(shop["server_cpu_ms_per_edit"].values()) <= 6
    )
    print(
        "targets met"
        if ok
        else "targets NOT met (server-side p95 <= 25 ms a keystroke; 0 errors, p95 <= 150 ms and <= 6 ms CPU an edit "
        "in the workshop)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
