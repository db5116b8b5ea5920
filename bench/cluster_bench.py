"""Reading a cluster (evaluator/cluster) against the fake API server of the tests: the reader's own CPU time
(this thread's, `time.thread_time`; the server answers in other threads) and wall time, and the calls made,
for a typical load (policies, namespaces, 150 Deployments), a count then load of 1,000 Deployments (two
pages), and a 5,000-object list refused at a cap of 1,000. Prints medians of `--rounds`.

Targets: the reader's CPU under 200 ms in every scenario (parsing, not waiting, is its cost), and the refused
list stops at its first page (its `remainingItemCount` says it is too large) instead of reading 5,000 objects.

    python bench/cluster_bench.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.cluster import (  # noqa: E402
    DEFAULT_ALLOWED,
    ClusterReader,
    Connection,
    ObjectQuery,
    ReadOnlyClient,
    Selection,
    allowed_set,
    count,
    load,
)
from tests.fake_apiserver import sample_cluster, serving, write_kubeconfig  # noqa: E402

SCENARIOS = {
    "typical load (policies, namespaces, 150 Deployments)": (
        147,
        Selection(policies=True, namespaces=True, objects=[ObjectQuery("Deployment")]),
        1000,
        False,
    ),
    "count, then load 1,000 Deployments (2 pages)": (997, Selection(objects=[ObjectQuery("Deployment")]), 1000, True),
    "5,000 Deployments refused at a cap of 1,000": (4997, Selection(objects=[ObjectQuery("Deployment")]), 1000, False),
}


def run(kubeconfig: Path, selection: Selection, cap: int, counted: bool) -> tuple[float, float, int, int]:
    started, cpu = time.perf_counter(), time.thread_time()
    client = ReadOnlyClient(Connection(str(kubeconfig))).open()
    reader = ClusterReader(client, allowed_set(DEFAULT_ALLOWED))
    if counted:
        count(reader, selection, cap)
    loaded, errors = load(reader, selection, cap)
    client.close()
    return time.thread_time() - cpu, time.perf_counter() - started, len(loaded), len(errors)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one round")
    args = parser.parse_args()
    rounds_wanted = 1 if args.quick else args.rounds
    missed = []
    for title, (extra, selection, cap, counted) in SCENARIOS.items():
        cluster = sample_cluster(deployments=extra)
        with tempfile.TemporaryDirectory() as tmp, serving(cluster) as url:
            kubeconfig = write_kubeconfig(Path(tmp) / "kubeconfig", url)
            rounds = []
            for _ in range(rounds_wanted):
                cluster.requests.clear()
                rounds.append((*run(kubeconfig, selection, cap, counted), len(cluster.requests)))
        cpu = statistics.median(r[0] for r in rounds) * 1000
        wall = statistics.median(r[1] for r in rounds) * 1000
        _, _, objects, errors, calls = rounds[-1]
        print(f"{title}: reader CPU {cpu:.0f} ms, wall {wall:.0f} ms, {objects} objects, {errors} errors, {calls} GETs")
        if cpu >= 200:
            missed.append(f"{title}: reader CPU {cpu:.0f} ms")
        if "refused" in title:
            pages = [q for _, p, q, _ in cluster.requests if p == "/apis/apps/v1/deployments"]
            if len(pages) != 1:
                missed.append(f"{title}: {len(pages)} list calls, not 1")
    print(
        "target (reader CPU < 200 ms per scenario; a refused list read one page):",
        "missed:" if missed else "met",
        "; ".join(missed),
    )
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
