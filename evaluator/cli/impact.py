"""`impact --base OLD --head NEW (--objects DUMP | --audit-log LOG | --kubeconfig K)`: what a policy change
would do -- which requests of a cluster dump, a live cluster or an audit log it newly denies, allows, warns
about or errs on.

`--base` and `--head` (repeatable) are policy files, directories of them, or `REV:PATH` in git (`main:
policies/`, `HEAD~1:policy.yaml`). The corpus: a dump (`--objects`, as `batch` reads it: every object a
CREATE), an `audit.k8s.io/v1` log (`--audit-log`: JSON lines or an EventList, gzip or not, `-` for stdin,
streamed: each create, update, patch, delete and connect at level Request or RequestResponse replayed with
its user, old object and dry-run flag) or a live cluster (`--kubeconfig`, read-only). `--jobs N` runs N
worker processes. Output on stdout: text, JSON (evaluator/batch/impact/SCHEMA.md), Markdown for a
pull-request comment (under 60 KB), JUnit (one case per changed request) or CSV (one line per changed
request).
Exit status: 1 when the change newly denies a request (`--fail-on warned`: also newly warns; `changed`: any
change; `never`: never), else 0; 2 on unusable input (an unreadable file, a YAML error, an invalid policy, a
CEL compile error, no policy in either set, an empty corpus, an audit log without request bodies). Input
problems go to stderr as FILE:LINE:COLUMN: severity: message; a malformed audit line is a warning (the rest
still replays).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from evaluator.batch import compiled, with_namespaces
from evaluator.batch.impact import AuditLog, ImpactReport, ImpactSummary, Item, gate, object_items, render, run_impact
from evaluator.batch.impact.outputs import FORMATS
from evaluator.cli.commands import UNUSABLE
from evaluator.cli.located import is_error, located

FAIL_ON = {"denied": "newlyDenied", "warned": "newlyWarned", "changed": "changed", "never": "never"}


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "impact",
        help="what a policy change would do to a dump, a cluster or an audit log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base", action="append", required=True, metavar="PATH", help="the policies now (repeatable)")
    parser.add_argument("--head", action="append", required=True, metavar="PATH", help="the policies changed")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--objects", action="append", metavar="DUMP", help="objects to admit as CREATE (repeatable)")
    source.add_argument("--audit-log", metavar="LOG", help="an audit.k8s.io/v1 log to replay (- for stdin)")
    source.add_argument("--kubeconfig", metavar="PATH", help="list the objects of this cluster (read-only)")
    parser.add_argument("--context", help="the kubeconfig context to use (default: its current context)")
    parser.add_argument("-o", "--output", choices=FORMATS, default="text")
    parser.add_argument(
        "--fail-on",
        choices=tuple(FAIL_ON),
        default="denied",
        help="exit 1 when a request is newly denied (default), newly denied or warned, changed at all, or never",
    )
    parser.add_argument(
        "--max-changes",
        type=_count,
        default=None,
        metavar="N",
        help="changed requests listed (default 20,000; all are counted)",
    )
    from evaluator.cli.batch import _draw_progress, _jobs
    from evaluator.cli.simulate_command import add_version_argument

    parser.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N", help="worker processes (default 1)")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", action="store_true", help="draw progress even if stderr is no terminal")
    progress.add_argument("--no-progress", action="store_true", help="do not draw progress")
    add_version_argument(parser)
    parser.set_defaults(handler=run, draw_progress=_draw_progress)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be at least 0")
    return value


def _counter(stream: IO[str], total: int | None) -> Callable[[int], None]:
    def draw(done: int) -> None:
        stream.write(f"\r{done:,}{f'/{total:,}' if total else ''} requests compared")
        stream.flush()

    return draw


class _Corpus:
    """The requests to compare, read lazily, and what their reader says of them."""

    def __init__(
        self, items: Iterable[Item], total: int | None, describe: Callable[[], dict], errors: Callable[[], list]
    ):
        self.items, self.total, self.describe, self.errors = items, total, describe, errors


def _dump(paths: list[str]) -> tuple[_Corpus, list[Any], list[dict]]:
    from evaluator.cli.batch import _read_object_files

    objects, problems = _read_object_files(paths)
    if not objects and not problems:
        problems.append({"severity": "error", "source": ", ".join(paths), "message": "no objects found"})
    corpus = _Corpus(
        object_items(objects),
        len(objects),
        lambda: {"format": "objects", "source": ", ".join(paths), "objects": len(objects)},
        list,
    )
    return corpus, objects, problems


def _cluster(args: argparse.Namespace, documents: list[Any]) -> tuple[_Corpus, list[Any], list[dict]]:
    from evaluator.batch.cluster import list_namespaces, list_objects

    objects, problems = list_objects(args.kubeconfig, args.context, documents=documents)
    namespaces, trouble = list_namespaces(args.kubeconfig, args.context)
    corpus = _Corpus(
        object_items(objects),
        len(objects),
        lambda: {"format": "cluster", "source": args.kubeconfig, "objects": len(objects)},
        list,
    )
    return corpus, namespaces, problems + trouble


def _audit(path: str) -> tuple[_Corpus | None, list[dict]]:
    try:
        stream: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 (closed by the run)
    except OSError as exc:
        return None, [{"severity": "error", "source": path, "message": f"cannot read file: {exc.strerror or exc}"}]
    log = AuditLog(stream, "<stdin>" if path == "-" else path)
    return _Corpus(_closing(log, stream), None, log.stats, lambda: log.errors), []


def _closing(items: Iterable[Item], stream: IO[bytes]) -> Iterator[Item]:
    try:
        yield from items
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _unusable_corpus(source: dict) -> list[dict]:
    name = str(source.get("source") or "")
    if source.get("format") in ("JSON lines", "EventList"):
        if not source.get("events"):
            return [{"severity": "error", "source": name, "message": "no audit event found: not an audit log"}]
        if source.get("noRequestBodies"):
            return [
                {
                    "severity": "error",
                    "source": name,
                    "message": f"the audit log holds no request bodies ({source['events']:,} events, none at level "
                    "Request or RequestResponse): no create or update can be replayed"
                    + (f" (only {source['replayed']:,} deletes, without their objects)" if source["replayed"] else "")
                    + ". Log the writes at level Request (or RequestResponse, for old objects) in the audit policy",
                }
            ]
    return []


def run(args: argparse.Namespace) -> int:
    from evaluator.cli.policy_sets import read_policy_set
    from evaluator.cli.simulate_command import load_documents_of

    if args.context and not args.kubeconfig:
        print("error: --context needs --kubeconfig", file=sys.stderr)
        return UNUSABLE
    base_texts, problems = read_policy_set(args.base)
    head_texts, trouble = read_policy_set(args.head)
    problems += trouble
    base_docs, head_docs = load_documents_of(base_texts), load_documents_of(head_texts)
    namespaces: list[Any] = []
    corpus: _Corpus | None
    if args.kubeconfig:
        corpus, namespaces, trouble = _cluster(args, base_docs + head_docs)
    elif args.objects:
        corpus, namespaces, trouble = _dump(args.objects)
    else:
        corpus, trouble = _audit(args.audit_log)
    problems += trouble
    version = args.kubernetes_version
    base = [*base_texts, *with_namespaces(base_docs, namespaces)[len(base_docs) :]]
    head = [*head_texts, *with_namespaces(head_docs, namespaces)[len(head_docs) :]]
    for inputs in (base, head):
        simulation = compiled(inputs, version)
        problems += simulation.errors
    if not any(is_error(p) for p in problems) and not any(
        kind.active for inputs in (base, head) for kind in compiled(inputs, version).kinds
    ):
        problems.append({"severity": "error", "source": ", ".join(args.base + args.head), "message": "no policy found"})
    report = ImpactReport(ImpactSummary())
    if corpus is not None and not any(is_error(p) for p in problems):
        progress = _counter(sys.stderr, corpus.total) if args.draw_progress(args) else None
        options = {} if args.max_changes is None else {"max_changes": args.max_changes}
        run_impact(
            base,
            head,
            corpus.items,
            jobs=args.jobs,
            kubernetes_version=version,
            on_progress=progress,
            report=report,
            **options,
        )
        if progress is not None:
            sys.stderr.write("\n")
        report.source = corpus.describe()
        problems += corpus.errors() + _unusable_corpus(report.source)
    report.input_errors = problems
    unusable = sum(is_error(p) for p in problems)
    output = render(report, args.output, fail_on=FAIL_ON[args.fail_on])
    if unusable and args.output == "text":
        output = f"UNUSABLE INPUT: {unusable} error(s), listed on stderr\n" + output
    sys.stdout.write(output)
    for problem in problems:
        print(located(problem), file=sys.stderr)
    if unusable:
        return UNUSABLE
    return gate(report, FAIL_ON[args.fail_on])
