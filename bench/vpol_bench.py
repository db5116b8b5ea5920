"""Kyverno ValidatingPolicy throughput: compiling policies (with autogen variants) and evaluating
(policy, resource) pairs of the kyverno-vpol conformance data, one core. Prints medians of `--rounds`.

    python bench/vpol_bench.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.policies.kyverno_vpol import compile_all  # noqa: E402
from tests.conformance.kyverno_vpol_cases import run_case  # noqa: E402

CASES = ROOT / "tests" / "data" / "conformance" / "kyverno-vpol" / "cases.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    if args.quick:
        cases, args.rounds = cases[:100], 1
    policies = {json.dumps(c["policies"], sort_keys=True): c["policies"] for c in cases}
    compile_times, run_times = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        entries = sum(len(compile_all(p)) for p in policies.values())
        compile_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for case in cases:
            run_case(case)
        run_times.append(time.perf_counter() - start)
    compile_s, run_s = statistics.median(compile_times), statistics.median(run_times)
    print(
        f"compile: {entries} policies (+ autogen variants) in {compile_s * 1000:.0f} ms "
        f"({compile_s / max(entries, 1) * 1000:.2f} ms each, programs cached after the first round)"
    )
    print(
        f"evaluate: {len(cases)} cases in {run_s:.2f} s = {len(cases) / run_s:.0f} cases/s "
        f"({run_s / len(cases) * 1000:.2f} ms per case, compile included)"
    )


if __name__ == "__main__":
    main()
