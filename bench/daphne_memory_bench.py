"""The web process's memory under repeated load: does daphne's resident memory level off, or grow round after
round?

Starts its own daphne (bench/ws_bench.py's Server: SQLite unless --postgres, in-memory layer unless --redis)
and runs ROUNDS rounds of ws_bench's workshop load: CLIENTS clients, each on a fresh fork of the example (new
projects every round, so nothing is served from the previous round's caches), one edit every 2 s each for
SECONDS. After each round, once the sockets are closed and a few seconds have passed, it reads daphne's
resident memory (VmRSS, Linux /proc; the evaluation workers are other processes, see worker_memory_bench.py).
Round 1 warms the process up (imports, pools, caches filled once); steady means what follows adds little.
Target: RSS after the last round within 5 MiB of RSS after round 2, and no errors.

With --tracemalloc the server runs under tracemalloc and writes a snapshot after each round; the report then
lists the ten source lines whose allocations grew most between round 2 and the last.

    .venv/bin/python bench/daphne_memory_bench.py [--quick] [--clients 60] [--seconds 30] [--rounds 3]
                                                  [--tracemalloc] [--json] [--postgres [URL]] [--redis [URL]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ws_bench import PYTHON, Server, workshop  # noqa: E402  (the same server and load)

SETTLE_SECONDS = 3.0  # after a round: the sockets' disconnects and the room caches' release run
GROWTH_LIMIT_MB = 5.0

# daphne with tracemalloc: SIGUSR1 writes a snapshot to $BENCH_SNAPSHOT_DIR/<n>.snapshot
# (guarded: the evaluation workers are spawned, and a spawned child imports the parent's main module)
TRACED_DAPHNE = """
import os, signal, sys, tracemalloc
count = [0]
def dump(*_):
    count[0] += 1
    tracemalloc.take_snapshot().dump(os.path.join(os.environ["BENCH_SNAPSHOT_DIR"], f"{count[0]}.snapshot"))
if __name__ == "__main__":
    tracemalloc.start(8)
    signal.signal(signal.SIGUSR1, dump)
    sys.path.insert(0, os.getcwd())
    from daphne.cli import CommandLineInterface
    sys.argv[0] = "daphne"
    CommandLineInterface.entrypoint()
"""


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


class TracedServer(Server):
    """The bench's server, started under tracemalloc (slower: figures of such a run are not the steady state)."""

    start_seconds = 240

    def daphne_command(self) -> list[str]:
        self.snapshots = Path(self.tmp.name) / "snapshots"
        self.snapshots.mkdir(exist_ok=True)
        self.env["BENCH_SNAPSHOT_DIR"] = str(self.snapshots)
        script = Path(self.tmp.name) / "traced_daphne.py"
        script.write_text(TRACED_DAPHNE)
        return [PYTHON, str(script)]

    def snapshot(self, number: int) -> Path:
        os.kill(self.process.pid, signal.SIGUSR1)
        path = self.snapshots / f"{number}.snapshot"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if path.exists() and path.stat().st_size:
                time.sleep(1)  # written in one go, but give the writer a moment to finish
                return path
            time.sleep(0.2)
        raise RuntimeError("no tracemalloc snapshot from the server")


def top_growth(first: Path, last: Path, lines: int = 10) -> list[str]:
    import tracemalloc

    before, after = tracemalloc.Snapshot.load(str(first)), tracemalloc.Snapshot.load(str(last))
    keep = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    stats = after.filter_traces(keep).compare_to(before.filter_traces(keep), "lineno")
    return [str(stat) for stat in stats[:lines]]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 clients x 10 s a round")
    parser.add_argument("--clients", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--redis", nargs="?", const="redis://127.0.0.1:6379/0", default=None)
    parser.add_argument("--postgres", nargs="?", const="postgres://postgres@127.0.0.1:5432/ws_bench", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    clients = args.clients or (20 if args.quick else 60)
    seconds = args.seconds or (10.0 if args.quick else 30.0)
    server_class = TracedServer if args.tracemalloc else Server
    rounds = []
    growth: list[str] = []
    with server_class(args.redis, args.postgres) as server:
        started = resident_mb(server.process.pid)
        for number in range(1, args.rounds + 1):
            shop = asyncio.run(workshop(server, clients, seconds))
            time.sleep(SETTLE_SECONDS)
            rss = resident_mb(server.process.pid)
            rounds.append({"round": number, "rss_mb": rss, "edits": shop["edits"], "errors": shop["errors"]})
            if args.tracemalloc:
                server.snapshot(number)
        if args.tracemalloc and len(rounds) >= 3:
            growth = top_growth(server.snapshots / "2.snapshot", server.snapshots / f"{len(rounds)}.snapshot")
    report = {
        "clients": clients,
        "seconds": seconds,
        "database": "postgresql" if args.postgres else "sqlite",
        "channel_layer": "redis" if args.redis else "in-memory",
        "start_rss_mb": started,
        "rounds": rounds,
        "growth_after_round_2_mb": round(rounds[-1]["rss_mb"] - rounds[min(1, len(rounds) - 1)]["rss_mb"], 1),
        "top_growth": growth,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"daphne RSS ({clients} clients x {seconds:.0f} s a round, {report['database']}, "
            f"{report['channel_layer']} layer): start {started} MiB, "
            + ", ".join(
                f"round {r['round']} {r['rss_mb']} MiB ({r['edits']} edits, {r['errors']} errors)" for r in rounds
            )
        )
        for line in growth:
            print("  grew:", line)
    ok = (
        len(rounds) >= 3
        and report["growth_after_round_2_mb"] <= GROWTH_LIMIT_MB
        and not any(r["errors"] for r in rounds)
    )
    print(
        "targets met"
        if ok
        else f"targets NOT met (3 rounds or more; RSS after the last within {GROWTH_LIMIT_MB:.0f} MiB of round 2; 0 errors)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
