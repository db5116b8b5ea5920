"""CEL evaluation speed: `evaluator.cel` against cel-python's InterpretedRunner (and cel-expr-python).

Usage:  python bench/cel_bench.py [--quick] [--rounds N] [--json FILE]

All engines run in one process so the ratios are comparable (method of the engine study,
shared/docs/cel-engine-study/bench.py): every figure is the median of single-operation timings with
the garbage collector off while timing; the suite is repeated --rounds times and the table shows the
median over rounds; ratios are computed inside each round, then their median is taken.

Metrics (µs per operation):
  ours eval          `Program.evaluate(bindings)` on a compiled program, bindings are plain data
  ours call          `evaluator.cel.evaluate(expression, bindings)`: cache lookup + evaluate + to_json
  celpy eval         `celpy.InterpretedRunner(env, ast, functions).evaluate(converted)`, data
                     converted with `json_to_cel` beforehand (untimed)
  celpy conv+eval    compile once; convert the bindings and evaluate on every call
  cel-expr eval      cel-expr-python `program.eval(Activation)`, a fresh, warmed Activation per sample
  cel-expr conv+eval cel-expr-python `program.eval(data=bindings)`

Targets (issue 2): ours eval ≥ 30x faster than celpy eval; ours call ≥ 10x faster than celpy
conv+eval; aim: ours eval within 3x of cel-expr eval. Results must be identical across engines.
cel-expr-python is optional: when it is not installed its columns are left out.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import statistics
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import celpy  # noqa: E402
from celpy.adapter import json_to_cel  # noqa: E402

from evaluator.cel import compile_program, evaluate, to_json  # noqa: E402

logging.getLogger("celpy").setLevel(logging.CRITICAL)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod", "labels": {"app": "web"}},
    "spec": {
        "replicas": 3,
        "template": {
            "spec": {
                "containers": [
                    {"name": n, "image": f"prod.example.com/{n}:1", "ports": [{"containerPort": 8080}]} for n in "abc"
                ]
            }
        },
    },
}
SMALL = {"object": DEPLOYMENT, "params": {"maxReplicas": 5}, "variables": {"environment": "prod"}}
BIG = {
    "object": {"items": [{"name": f"item-{i}", "value": i} for i in range(1000)]},
    "params": {"maxReplicas": 5},
    "variables": {"environment": "prod"},
}

CASES = [
    (
        "(b) all/startsWith, 3 containers",
        "object.spec.template.spec.containers.all(c, c.image.startsWith(variables.environment + '.example.com/'))",
        SMALL,
    ),
    ("(c) replicas <= params.maxReplicas", "object.spec.replicas <= params.maxReplicas", SMALL),
    ("(d) filter+map over 1000 elements", "size(object.items.filter(x, x.value > 500).map(x, x.name)) == 499", BIG),
]

TARGETS = {"eval": 30.0, "call": 10.0}


def plain(v: Any) -> Any:
    """cel-python / cel-expr-python values as plain Python for comparing results."""
    if type(v).__name__ == "BoolType" or isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, str):
        return str(v)
    if isinstance(v, dict):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def median_us(fn: Callable[[Any], Any], n: int, budget_s: float, setup: Callable[[], Any] | None = None) -> float:
    """Median µs of single calls fn(setup()) — up to n samples, bounded by budget_s; GC off while timing."""
    setup = setup or (lambda: None)
    for _ in range(5):
        fn(setup())
    x = setup()
    t0 = time.perf_counter()
    fn(x)
    estimate = time.perf_counter() - t0
    count = max(9, min(n, int(budget_s / max(estimate, 1e-9))))
    samples = []
    gc_was = gc.isenabled()
    try:
        for _ in range(count):
            x = setup()
            gc.disable()
            t = time.perf_counter_ns()
            fn(x)
            samples.append(time.perf_counter_ns() - t)
            gc.enable()
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(samples) / 1000.0


class Celpy:
    """cel-python's InterpretedRunner, built directly (never Environment.program()'s shared state)."""

    def __init__(self) -> None:
        self.env = celpy.Environment()

    def compile(self, expression: str) -> Any:
        return celpy.InterpretedRunner(self.env, self.env.compile(expression), None)

    @staticmethod
    def convert(bindings: dict) -> dict:
        return {k: json_to_cel(v) for k, v in bindings.items()}

    def conv_eval(self, runner: Any, bindings: dict) -> Any:
        return runner.evaluate(self.convert(bindings))


class CelExpr:
    """cel-expr-python (CEL-C++), optional."""

    def __init__(self, variables: list[str]) -> None:
        from cel_expr_python import cel

        self.cel = cel
        self.env = cel.NewEnv(variables={v: cel.Type.DYN for v in variables})

    def compile(self, expression: str) -> Any:
        return self.env.compile(expression)

    def fresh_activation(self, program: Any, bindings: dict) -> Any:
        act = self.env.Activation(bindings)
        program.eval(act)  # first use converts lazily; untimed
        return act

    def result(self, value: Any) -> Any:
        if value.type() == self.cel.Type.ERROR:
            raise RuntimeError(str(value.value()))
        try:
            return plain(value.plain_value())
        except Exception:  # noqa: BLE001 - older releases lack plain_value()
            return plain(value.value())


def make_cel_expr() -> CelExpr | None:
    try:
        return CelExpr(list(SMALL))
    except ImportError:
        return None


def one_round(n: int, budget: float, celpy_engine: Celpy, cel_expr: CelExpr | None) -> dict:
    out: dict[str, dict[str, float]] = {}
    for label, expression, bindings in CASES:
        row: dict[str, float] = {}
        program = compile_program(expression, declared=tuple(bindings))
        runner = celpy_engine.compile(expression)
        converted = celpy_engine.convert(bindings)
        results = {
            "ours eval": to_json(program.evaluate(bindings).value),
            "ours call": evaluate(expression, bindings),
            "celpy eval": plain(runner.evaluate(converted)),
            "celpy conv+eval": plain(celpy_engine.conv_eval(runner, bindings)),
        }
        if cel_expr is not None:
            cprog = cel_expr.compile(expression)
            results["cel-expr eval"] = cel_expr.result(cprog.eval(cel_expr.fresh_activation(cprog, bindings)))
            results["cel-expr conv+eval"] = cel_expr.result(cprog.eval(data=bindings))
        if len({json.dumps(v, sort_keys=True) for v in results.values()}) != 1:
            raise SystemExit(f"results differ for {label}: {results}")

        row["ours eval"] = median_us(lambda _: program.evaluate(bindings), n, budget)
        row["ours call"] = median_us(lambda _: evaluate(expression, bindings), n, budget)
        row["celpy eval"] = median_us(runner.evaluate, n, budget, setup=lambda: celpy_engine.convert(bindings))
        row["celpy conv+eval"] = median_us(lambda _: celpy_engine.conv_eval(runner, bindings), n, budget)
        if cel_expr is not None:
            row["cel-expr eval"] = median_us(
                cprog.eval, n, budget, setup=lambda: cel_expr.fresh_activation(cprog, bindings)
            )
            row["cel-expr conv+eval"] = median_us(lambda _: cprog.eval(data=bindings), n, budget)
        row["eval speed-up vs celpy"] = row["celpy eval"] / row["ours eval"]
        row["call speed-up vs celpy"] = row["celpy conv+eval"] / row["ours call"]
        if cel_expr is not None:
            row["ours eval / cel-expr eval"] = row["ours eval"] / row["cel-expr eval"]
        out[label] = row
    return out


def summarise(rounds: list[dict]) -> dict:
    return {
        label: {metric: statistics.median(r[label][metric] for r in rounds) for metric in rounds[0][label]}
        for label in rounds[0]
    }


def machine() -> dict:
    return {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "celpy": _version("cel-python"),
        "cel-expr-python": _version("cel-expr-python"),
    }


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def table(summary: dict) -> str:
    metrics = [m for m in next(iter(summary.values())) if "speed-up" not in m and "/" not in m]
    lines = [
        "| expression | "
        + " | ".join(f"{m} (µs)" for m in metrics)
        + " | eval speed-up | call speed-up | ours/cel-expr eval |",
        "|---" * (len(metrics) + 4) + "|",
    ]
    for label, row in summary.items():
        cells = [f"{row[m]:,.1f}" for m in metrics]
        ratio = row.get("ours eval / cel-expr eval")
        cells += [
            f"{row['eval speed-up vs celpy']:,.0f}x",
            f"{row['call speed-up vs celpy']:,.0f}x",
            f"{ratio:.1f}x" if ratio is not None else "—",
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdict(summary: dict) -> list[str]:
    missed = []
    for label, row in summary.items():
        if row["eval speed-up vs celpy"] < TARGETS["eval"]:
            missed.append(f"{label}: eval {row['eval speed-up vs celpy']:.1f}x < {TARGETS['eval']:.0f}x")
        if row["call speed-up vs celpy"] < TARGETS["call"]:
            missed.append(f"{label}: call {row['call speed-up vs celpy']:.1f}x < {TARGETS['call']:.0f}x")
    return missed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one short round (smoke run)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=2000, help="max samples per measurement")
    ap.add_argument("--budget", type=float, default=4.0, help="max seconds per measurement")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON ('-' for stdout)")
    a = ap.parse_args(argv)
    if a.quick:
        a.rounds, a.n, a.budget = 1, 200, 0.5
    celpy_engine, cel_expr = Celpy(), make_cel_expr()
    rounds = [one_round(a.n, a.budget, celpy_engine, cel_expr) for _ in range(a.rounds)]
    summary = summarise(rounds)
    info = machine()
    missed = verdict(summary)
    if a.json == "-":
        print(json.dumps({"machine": info, "results": summary, "targets_missed": missed}, indent=1))
        return 1 if missed else 0
    print(f"machine: {info}  rounds: {a.rounds}")
    if cel_expr is None:
        print("cel-expr-python not installed: its columns are left out")
    print(table(summary))
    print(
        "targets: eval ≥ 30x, call ≥ 10x vs cel-python —", "all met" if not missed else "MISSED: " + "; ".join(missed)
    )
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump({"machine": info, "results": summary, "targets_missed": missed}, fh, indent=1)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
