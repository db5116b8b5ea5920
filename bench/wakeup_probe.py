"""What this machine charges for waking a process: one byte sent to a child process over a pipe and back.

Every live edit wakes processes and threads that were asleep (the server on the client's frame, its database
thread, an evaluation worker, the server again on the worker's answer, the client), so a machine whose
wake-ups are dear makes every edit dear, whatever the code does: compare `ws_bench.py`'s CPU per edit across
machines with this figure beside it. Reports the CPU of each side and the wall time of a round trip, back to
back and with a pause before each (the pause itself not counted), medians of `--rounds`.

Run:  python bench/wakeup_probe.py [--trips 2000] [--pause-ms 0 5 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time


def round_trips(trips: int, pause: float) -> tuple[float, float, float]:
    """(parent CPU, child CPU, wall) in microseconds a round trip, the pauses left out of the wall time."""
    to_child, from_parent = os.pipe()
    to_parent, from_child = os.pipe()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pid = os.fork()
    if pid == 0:  # the child: answer each byte
        for _ in range(trips):
            os.read(to_child, 1)
            os.write(from_child, b"x")
        os._exit(0)
    cpu, wall, paused = time.process_time(), time.perf_counter(), 0.0
    for _ in range(trips):
        if pause:
            started = time.perf_counter()
            time.sleep(pause)
            paused += time.perf_counter() - started
        os.write(from_parent, b"x")
        os.read(to_parent, 1)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall - paused
    os.waitpid(pid, 0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    for fd in (to_child, from_parent, to_parent, from_child):
        os.close(fd)
    return cpu / trips * 1e6, child / trips * 1e6, wall / trips * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trips", type=int, default=2000)
    parser.add_argument("--pause-ms", type=float, nargs="+", default=[0.0, 5.0, 20.0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| pause before each | parent CPU | child CPU | wall |")
    print("| --- | --- | --- | --- |")
    for pause in args.pause_ms:
        runs = [round_trips(args.trips, pause / 1000) for _ in range(args.rounds)]
        parent, child, wall = (statistics.median(run[i] for run in runs) for i in range(3))
        print(f"| {pause:g} ms | {parent:.1f} µs | {child:.1f} µs | {wall:.1f} µs |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
