"""`batch -f policies.yaml --objects dump.yaml`: what the policies would do to every object of a cluster dump.

Each object (multi-document YAML, JSON, `kubectl get -A -o yaml` Lists, `.tar.gz` archives of manifests;
`--objects -` reads stdin) is admitted as a CREATE request; `--kubeconfig` lists the objects of a live
cluster instead (read-only: the kinds the policies match). `--jobs N` runs N worker processes. The output
goes to stdout: a summary as text or JSON (per policy: denied, warned, audited, errors, with examples; per
namespace and kind), Kyverno PolicyReports as YAML, or one CSV line per (object, policy). A progress bar
goes to stderr when it is a terminal.
Exit status, as `simulate`'s: 0 when no object is denied, 1 when one is (`--fail-on warned`: also when one
gets a warning; `--fail-on never`: never), 2 on unusable input (an unreadable or binary file, a YAML error,
an invalid policy, a CEL compile error, no policy, no objects). Input problems are printed on stderr as
FILE:LINE:COLUMN: severity: message (`-o json` also lists them under `inputErrors`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import IO, Any


from evaluator.batch import (
    Summary,
    compiled,
    csv_text,
    write_policy_reports,
    read_objects,
    request_for,
    row_of,
    run_parallel,
    with_namespaces,
)
from evaluator.admission.loading import NamedText
from evaluator.cli.commands import UNUSABLE
from evaluator.cli.located import is_error, located
from evaluator.simulation import Simulation

OUTPUTS = ("text", "json", "policyreport", "csv")
FAIL_ON = ("denied", "warned", "never")


def register(commands: Any) -> None:
    parser = commands.add_parser("batch", help="run a cluster dump through the policies", description=__doc__)
    parser.add_argument(
        "-f", "--filename", action="append", required=True, help="policies, bindings, params (repeatable)"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--objects", action="append", help="objects to admit as CREATE (repeatable; - for stdin)")
    source.add_argument("--kubeconfig", metavar="PATH", help="list the objects from this cluster instead (read-only)")
    parser.add_argument("--context", help="the kubeconfig context to use (default: its current context)")
    parser.add_argument("-o", "--output", choices=OUTPUTS, default="text")
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="denied",
        help="exit 1 when an object is denied (default), denied or warned, or never",
    )
    parser.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N", help="worker processes (default 1)")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", action="store_true", help="draw the progress bar even if stderr is no terminal")
    progress.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    from evaluator.cli.simulate_command import add_version_argument

    add_version_argument(parser)
    parser.set_defaults(handler=run)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def progress_bar(total: int, stream: IO[str] | None = None) -> Callable[[int], None]:
    out = stream or sys.stderr
    started = time.monotonic()

    def draw(done: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(time.monotonic() - started, 1e-9)
        eta = (total - done) / rate if rate else 0
        out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:,.0f}/s, ETA {eta:,.0f} s)")
        if done == total:
            out.write("\n")
        out.flush()

    return draw


def run_batch(
    simulation: Simulation, objects: Iterable[Any], on_progress: Callable[[int], None] | None = None
) -> Summary:
    """The summary of `objects` through an already loaded simulation, in this process (the batch path)."""
    summary = Summary()
    objects = list(objects)
    step = max(1, len(objects) // 100)
    for index, obj in enumerate(objects):
        summary.add(row_of(index, obj, simulation.run(request_for(index, obj), trace=False, full=False)))
        done = index + 1
        if on_progress is not None and (done % step == 0 or done == len(objects)):
            on_progress(done)
    return summary


def _read_object_files(paths: list[str]) -> tuple[list[Any], list[dict]]:
    objects: list[Any] = []
    errors: list[dict] = []
    for path in paths:
        name = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                data = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as handle:
                    data = handle.read()
        except OSError as exc:
            errors.append({"severity": "error", "source": name, "message": f"cannot read file: {exc.strerror or exc}"})
            continue
        found, problems = read_objects(data, name)
        objects += found
        errors += problems
    return objects, errors


def _from_cluster(args: argparse.Namespace, documents: list[Any]) -> tuple[list[Any], list[Any], list[dict]]:
    """(objects, the cluster's namespaces, errors)."""
    from evaluator.batch.cluster import read_cluster

    progress = reading_progress() if _draw_progress(args) else None
    return read_cluster(args.kubeconfig, args.context, documents=documents, progress=progress)


def reading_progress(stream: IO[str] | None = None) -> Callable[[str, int, int | None], None]:
    """One line per kind being read, redrawn per page: `reading deployments.apps: 300/1,000`."""
    out = stream or sys.stderr
    open_line: list[str] = []  # the kind whose line is not ended yet

    def draw(kind: str, read: int, total: int | None) -> None:
        if open_line and open_line[0] != kind:
            out.write("\n")
        out.write(f"\rreading {kind}: {read:,}" + (f"/{total:,}" if total else "") + "\x1b[K")
        open_line[:] = [] if total is not None and read >= total else [kind]
        if not open_line:
            out.write("\n")
        out.flush()

    return draw


def _policy_files(paths: list[str]) -> tuple[list[str], list[Any], list[dict]]:
    """(texts named by their files, their documents as data, unreadable files) of the -f files."""
    from evaluator.cli.simulate_command import load_documents_of, read_files

    texts: list[str] = []
    problems: list[dict] = []
    for name, text, problem in read_files(paths):
        if problem:
            problems.append(problem)
            continue
        texts.append(NamedText(text, name))
    return texts, load_documents_of(texts), problems


def run(args: argparse.Namespace) -> int:
    if args.context and not args.kubeconfig:
        print("error: --context needs --kubeconfig", file=sys.stderr)
        return UNUSABLE
    texts, documents, problems = _policy_files(args.filename)
    if args.kubeconfig:
        objects, namespaces, object_errors = _from_cluster(args, documents)
    else:
        objects, object_errors = _read_object_files(args.objects)
        namespaces = objects
    # the policy files as texts (their errors keep file, line and column), then the namespaces they lack
    added = with_namespaces(documents, namespaces)[len(documents) :]
    inputs: list[Any] = [*texts, *added]
    version = getattr(args, "kubernetes_version", None)
    simulation = compiled(inputs, version)
    problems += simulation.errors + object_errors
    if not any(is_error(p) for p in problems) and not any(kind.active for kind in simulation.kinds):
        problems.append({"severity": "error", "source": ", ".join(args.filename), "message": "no policy found"})
    if not objects and not object_errors and not args.kubeconfig:
        problems.append({"severity": "error", "source": ", ".join(args.objects), "message": "no objects found"})
    progress = progress_bar(len(objects)) if objects and _draw_progress(args) else None
    rows = run_parallel(inputs, objects, jobs=args.jobs, kubernetes_version=version, on_progress=progress)
    unusable = sum(is_error(p) for p in problems)
    summary = Summary.from_rows(rows)
    if args.output == "policyreport":
        write_policy_reports(rows, documents, sys.stdout)
    elif args.output == "csv":
        sys.stdout.write(csv_text(rows))
    elif args.output == "json":
        print(json.dumps({**summary.as_dict(), "inputErrors": problems}, indent=2))
    else:
        if unusable:
            print(f"UNUSABLE INPUT: {unusable} error(s), listed on stderr; the counts below leave out what they name")
        print(summary.text())
    for problem in problems:
        print(located(problem), file=sys.stderr)
    if unusable:
        return UNUSABLE
    return _gate(summary, args.fail_on)


def _gate(summary: Summary, fail_on: str) -> int:
    """1 when an object was denied (`denied`), denied or warned (`warned`); never for `never`."""
    if fail_on == "never":
        return 0
    failed = summary.denied > 0 or (fail_on == "warned" and summary.warned > 0)
    return 1 if failed else 0


def _draw_progress(args: argparse.Namespace) -> bool:
    """--progress, else not --no-progress and stderr is a terminal."""
    if args.progress or args.no_progress:
        return bool(args.progress)
    try:
        return os.isatty(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # an in-memory stream (pytest's capture)
        return False
