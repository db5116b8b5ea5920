"""A crowd on the REST API: 200 concurrent clients, 2,000 requests, one daphne on PostgreSQL (issue 34).

Starts one daphne on 127.0.0.1 with REDIS_URL and a fresh PostgreSQL database of its own (made on the server
--postgres names, dropped afterwards), creates a few projects, then lets --clients clients send --requests
requests in all, as fast as answers come, over a mix of project create, project get, project title change,
example list and project evaluate. A thread counts the server's sessions on that database
(`pg_stat_activity`) every 20 ms. Prints the status counts, the 5xx other than 503, the 503s and how many
carried Retry-After, the most sessions seen against the pool's bound, and p50/p95 latency.

Targets: no 5xx but 503, every 503 with Retry-After, sessions never above DATABASE_POOL_MAX_SIZE.
`--no-pool` serves without the pool (DATABASE_POOL_MAX_SIZE=0, connections kept DATABASE_CONN_MAX_AGE=600 s:
the behaviour before the pool) to compare; `--app-dir` serves another checkout. Without the pool a crowd opens
a session per concurrent request: point --postgres at a server no one else needs then.

    .venv/bin/python bench/crowd_rest_bench.py [--quick] [--clients 200] [--requests 2000] [--pool-max 10]
      [--pool-timeout 5] [--no-pool] [--app-dir DIR] [--json]
      [--redis redis://127.0.0.1:6379/0] [--postgres postgres://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

import aiohttp
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workshop_bench  # noqa: E402
from workshop_bench import Database, Servers  # noqa: E402  (the same throw-away database and daphne)
from ws_bench import summary  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= 5"
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec: {policyName: max-replicas, validationActions: [Deny]}
"""


def deployment(replicas: int) -> str:
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n"
        "  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n"
    )


def project_body(n: int) -> dict:
    return {
        "title": f"Crowd {n}",
        "documents": [{"name": "policy", "text": POLICY}, {"name": "binding", "text": BINDING}],
        "requests": [{"name": "small", "text": deployment(2)}, {"name": "big", "text": deployment(9)}],
    }


# (share of the requests, what) — reads dominate, as on a live site; evaluate is the slow one.
MIX = [(0.35, "get"), (0.15, "create"), (0.15, "patch"), (0.15, "examples"), (0.20, "evaluate")]


class SessionCounter(threading.Thread):
    """The most server sessions on the bench database, polled from pg_stat_activity."""

    def __init__(self, admin_url: str, database: str):
        super().__init__(daemon=True)
        self.admin_url, self.database = admin_url, database
        self.most = 0
        self.samples = 0
        self.stopped = threading.Event()

    def count(self, conn: psycopg.Connection) -> int:
        # Client sessions only: autovacuum workers visit a busy database too, and are not the server's.
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            [self.database],
        ).fetchone()
        return row[0] if row else 0

    def run(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:  # on the maintenance database: not counted
            while not self.stopped.is_set():
                self.most = max(self.most, self.count(conn))
                self.samples += 1
                self.stopped.wait(0.02)

    def now(self) -> int:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            return self.count(conn)


class Crowd:
    """What the clients saw."""

    def __init__(self, base: str, projects: list[dict], total: int, seed: int = 34):
        self.base, self.projects, self.total = base, projects, total
        self.random = random.Random(seed)
        self.sent = 0
        self.statuses: collections.Counter[int] = collections.Counter()
        self.by_kind: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
        self.latency_ms: list[float] = []
        self.retry_after = 0
        self.bad_5xx: list[str] = []
        self.transport_errors: list[str] = []

    def next_request(self) -> tuple[str, str, str, dict | None, dict]:
        kinds, weights = zip(*((kind, share) for share, kind in MIX))
        kind = self.random.choices(kinds, weights)[0]
        project = self.random.choice(self.projects)
        pid, token = project["id"], {"X-Edit-Token": project["editToken"]}
        if kind == "get":
            return kind, "GET", f"/api/v1/projects/{pid}", None, {}
        if kind == "create":
            return kind, "POST", "/api/v1/projects", project_body(self.sent), {}
        if kind == "patch":
            return kind, "PATCH", f"/api/v1/projects/{pid}", {"title": f"Renamed {self.sent}"}, token
        if kind == "examples":
            return kind, "GET", "/api/v1/examples", None, {}
        return kind, "POST", f"/api/v1/projects/{pid}/evaluate", None, {}

    async def client(self, session: aiohttp.ClientSession) -> None:
        while self.sent < self.total:
            self.sent += 1
            kind, method, path, body, headers = self.next_request()
            started = time.perf_counter()
            try:
                async with session.request(method, self.base + path, json=body, headers=headers) as response:
                    text = await response.text()
                    status = response.status
                    has_retry_after = "Retry-After" in response.headers
            except (aiohttp.ClientError, TimeoutError) as exc:
                self.transport_errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                continue
            self.latency_ms.append((time.perf_counter() - started) * 1000)
            self.statuses[status] += 1
            self.by_kind[kind][status] += 1
            if status == 503:
                self.retry_after += has_retry_after
            elif status >= 500:
                self.bad_5xx.append(f"{kind} {status}: {text[:200]}")

    async def run(self, clients: int) -> float:
        connector = aiohttp.TCPConnector(limit=clients)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            started = time.perf_counter()
            await asyncio.gather(*(self.client(session) for _ in range(clients)))
            return time.perf_counter() - started


def setup_projects(servers: Servers, count: int) -> list[dict]:
    return [servers.post(0, "/api/v1/projects", project_body(n)) for n in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 clients, 400 requests")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--pool-max", type=int, default=10, help="DATABASE_POOL_MAX_SIZE of the server")
    parser.add_argument("--pool-timeout", type=float, default=5.0, help="DATABASE_POOL_TIMEOUT of the server")
    parser.add_argument("--no-pool", action="store_true", help="serve without the pool (DATABASE_CONN_MAX_AGE=600)")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.requests = 50, 400
    pool_env = (
        {"DATABASE_POOL_MAX_SIZE": "0", "DATABASE_CONN_MAX_AGE": "600"}
        if args.no_pool
        else {"DATABASE_POOL_MAX_SIZE": str(args.pool_max), "DATABASE_POOL_TIMEOUT": str(args.pool_timeout)}
    )
    # Evaluations are rate limited per client address (120/min); the crowd here is one address.
    server_env = {"PLAYGROUND_EVALUATION_RATE": "1000000/min", **pool_env}
    with Database(args.postgres) as database_url:
        database = database_url.rsplit("/", 1)[1]
        workshop_bench.ROOT = args.app_dir.resolve()  # Servers migrates and serves from there (its cwd)
        servers = Servers(1, database_url, args.redis)
        servers.env.update(server_env)
        with servers:
            projects = setup_projects(servers, 20)
            counter = SessionCounter(args.postgres, database)
            counter.start()
            crowd = Crowd(f"http://127.0.0.1:{servers.ports[0]}", projects, args.requests)
            seconds = asyncio.run(crowd.run(args.clients))
            counter.stopped.set()
            counter.join()
            time.sleep(2)
            idle_after = counter.now()  # what the server still holds once the crowd is gone
            log = servers.log_tails(20)
    figures = {
        "clients": args.clients,
        "requests": args.requests,
        "pool": None if args.no_pool else {"max_size": args.pool_max, "timeout": args.pool_timeout},
        "seconds": round(seconds, 1),
        "statuses": dict(sorted(crowd.statuses.items())),
        "by_kind": {kind: dict(sorted(counts.items())) for kind, counts in sorted(crowd.by_kind.items())},
        "other_5xx": len(crowd.bad_5xx),
        "503": crowd.statuses[503],
        "503_with_retry_after": crowd.retry_after,
        "transport_errors": len(crowd.transport_errors),
        "max_sessions": counter.most,
        "session_samples": counter.samples,
        "sessions_2s_after": idle_after,
        "latency_ms": summary(crowd.latency_ms),
    }
    print(f"{args.clients} clients, {args.requests} requests in {figures['seconds']} s (pool: {figures['pool']})")
    print(f"statuses: {figures['statuses']}")
    for kind, counts in figures["by_kind"].items():
        print(f"  {kind}: {counts}")
    print(
        f"5xx other than 503: {len(crowd.bad_5xx)}; 503: {crowd.statuses[503]}, with Retry-After: {crowd.retry_after}"
    )
    print(f"transport errors: {len(crowd.transport_errors)}")
    bound = args.pool_max if not args.no_pool else "none"
    print(f"most PostgreSQL sessions on the database: {counter.most} (pool max {bound}; {counter.samples} samples)")
    print(f"sessions still open 2 s after the crowd: {idle_after}")
    print(f"latency ms: {figures['latency_ms']}")
    for line in (crowd.bad_5xx + crowd.transport_errors)[:5]:
        print(f"  e.g. {line}")
    if args.json:
        print(json.dumps(figures))
    met = (
        not crowd.bad_5xx
        and not crowd.transport_errors
        and crowd.retry_after == crowd.statuses[503]
        and (args.no_pool or counter.most <= args.pool_max)
    )
    if not met and log.strip():
        print(log)
    print(f"target (no 5xx but 503, every 503 with Retry-After, sessions <= pool max): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
