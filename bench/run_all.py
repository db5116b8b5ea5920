"""`make bench`: run every bench/*_bench.py, then list every target as met or not met.

Each script's exit status is its verdict (0: its targets met, 1 with its target line printed: a target
missed; anything else: it broke).
All scripts run even when one misses or breaks; the exit status is non-zero when any did.
Usage:  python bench/run_all.py [--quick] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _target_lines(output: str) -> list[str]:
    """The lines where a script states its targets (every bench script prints one)."""
    return [
        ln.strip()
        for ln in output.splitlines()
        if "target" in ln.lower() and ("met" in ln.lower() or "missed" in ln.lower())
    ]


def run(script: Path, quick: bool, timeout: float) -> tuple[str, list[str], float]:
    command = [sys.executable, str(script)] + (["--quick"] if quick else [])
    print(f"== {script.name} {' '.join(command[2:])}", flush=True)
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=HERE.parent, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        print(output)
        return f"NOT met: timed out after {timeout:.0f} s", [], time.monotonic() - started
    print(done.stdout, end="")
    if done.stderr.strip():
        print(done.stderr[-3000:], end="", file=sys.stderr)
    lines = _target_lines(done.stdout)
    if done.returncode == 0:
        verdict = "met"
    elif done.returncode == 1 and lines:
        verdict = "NOT met"
    else:  # no verdict printed: it broke before measuring (the traceback is above)
        verdict = f"NOT met: the script failed (exit {done.returncode}) before stating its targets"
    return verdict, lines, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each script's short run")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one script may take")
    args = parser.parse_args(argv)
    scripts = sorted(HERE.glob("*_bench.py"))
    if not scripts:
        print("no bench/*_bench.py", file=sys.stderr)
        return 1
    results = [(script.name, *run(script, args.quick, args.timeout)) for script in scripts]
    print("\n== targets" + (" (--quick: short runs, figures are indicative)" if args.quick else ""))
    for name, verdict, lines, seconds in results:
        print(f"{name:22s} {verdict}  ({seconds:.0f} s)")
        for line in lines:
            print(f"    {line}")
    missed = [name for name, verdict, _, _ in results if verdict != "met"]
    print(
        f"{len(results) - len(missed)} of {len(results)} benchmarks met their targets"
        + (f"; not met: {', '.join(missed)}" if missed else "")
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
