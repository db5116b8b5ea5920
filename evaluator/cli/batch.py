"""`batch -f policies.yaml --objects dump.yaml`: what the policies would do to every object of a cluster dump.

Each object (multi-document YAML or `kubectl get -o yaml` Lists) is admitted as a CREATE request. A
progress bar goes to stderr; the summary (per policy: denied, warned, audited, errors, with examples)
goes to stdout as text or JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from evaluator.simulation import Simulation

EXAMPLES_PER_POLICY = 5


def register(commands: Any) -> None:
    parser = commands.add_parser("batch", help="run a cluster dump through the policies", description=__doc__)
    parser.add_argument(
        "-f", "--filename", action="append", required=True, help="policies, bindings, params (repeatable)"
    )
    parser.add_argument("--objects", action="append", required=True, help="objects to admit as CREATE (repeatable)")
    parser.add_argument("-o", "--output", choices=("json", "text"), default="text")
    parser.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    from evaluator.cli.simulate_command import add_version_argument

    add_version_argument(parser)
    parser.set_defaults(handler=run)


def _label(obj: Any) -> str:
    if not isinstance(obj, dict):
        return "?"
    meta = obj.get("metadata") or {}
    name = f"{meta.get('namespace')}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
    return f"{obj.get('kind')} {name}"


class Summary:
    """Counts per policy and overall, with a few example objects for each outcome."""

    def __init__(self) -> None:
        self.total = self.denied = self.warned = self.audited = self.errors = 0
        self.policies: dict[str, dict[str, Any]] = {}

    def add(self, obj: Any, result: dict) -> None:
        self.total += 1
        self.denied += not result["allowed"]
        self.warned += bool(result["warnings"])
        self.audited += bool(result["auditAnnotations"])
        self.errors += any(r["outcome"] == "error" for r in result["policies"])
        seen: set[tuple[str, str]] = set()
        for record in result["policies"]:
            outcome = record["outcome"]
            if outcome in ("skipped",) or (record["policy"], outcome) in seen:
                continue
            seen.add((record["policy"], outcome))
            entry = self.policies.setdefault(
                record["policy"], {"admitted": 0, "denied": 0, "warned": 0, "audited": 0, "error": 0, "examples": {}}
            )
            entry[outcome] = entry.get(outcome, 0) + 1
            if outcome != "admitted":
                examples = entry["examples"].setdefault(outcome, [])
                if len(examples) < EXAMPLES_PER_POLICY:
                    message = record.get("error") or next(
                        (d["message"] for d in record["decisions"] if d["message"]), None
                    )
                    examples.append({"object": _label(obj), "message": message})

    def as_dict(self) -> dict[str, Any]:
        return {
            "objects": self.total,
            "denied": self.denied,
            "warned": self.warned,
            "audited": self.audited,
            "errors": self.errors,
            "policies": self.policies,
        }

    def text(self) -> str:
        lines = [
            f"{self.total} objects: {self.denied} denied, {self.warned} warned, {self.audited} audited, "
            f"{self.errors} with errors"
        ]
        for name, entry in sorted(self.policies.items()):
            lines.append(
                f"  {name}: denied {entry['denied']}, warned {entry['warned']}, audited {entry['audited']}, "
                f"errors {entry['error']}, admitted {entry['admitted']}"
            )
            for outcome, examples in entry["examples"].items():
                for example in examples:
                    lines.append(f"    {outcome}: {example['object']}: {example['message']}")
        return "\n".join(lines)


def progress_bar(total: int, stream=sys.stderr) -> Callable[[int], None]:
    started = time.monotonic()

    def draw(done: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(time.monotonic() - started, 1e-9)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:,.0f}/s)")
        if done == total:
            stream.write("\n")
        stream.flush()

    return draw


def run_batch(
    simulation: Simulation, objects: Iterable[Any], on_progress: Callable[[int], None] | None = None
) -> Summary:
    summary = Summary()
    objects = list(objects)
    step = max(1, len(objects) // 100)
    for done, obj in enumerate(objects, 1):
        request = {"uid": f"batch-{done}", "operation": "CREATE", "object": obj}
        summary.add(obj, simulation.run(request, trace=False, full=False))
        if on_progress is not None and (done % step == 0 or done == len(objects)):
            on_progress(done)
    return summary


def run(args: argparse.Namespace) -> int:
    from evaluator.cli.simulate_command import load_all

    documents, errors = load_all(args.filename)
    objects, object_errors = load_all(args.objects)
    errors += object_errors
    simulation = Simulation(documents, kubernetes_version=getattr(args, "kubernetes_version", None))
    for problem in errors + simulation.errors:
        if problem.get("severity") == "error":
            print(
                f"error: {problem.get('message')} ({problem.get('source') or ''} line {problem.get('line')})",
                file=sys.stderr,
            )
    progress = None if args.no_progress or not objects else progress_bar(len(objects))
    summary = run_batch(simulation, objects, progress)
    if args.output == "json":
        print(json.dumps(summary.as_dict(), indent=2))
    else:
        print(summary.text())
    return 0
