"""`simulate -f policies.yaml -f request.yaml [--output text|json|junit|admissionreview]`: one request, the
full decision (`admissionreview`: only the `admission.k8s.io/v1` AdmissionReview, request and response, as a
webhook would have been sent and answered).

Every file is read as multi-document YAML. The request is the document that is an AdmissionReview or
AdmissionRequest, else the last document that is not a policy (Kyverno's too), binding, policy exception, CRD,
Namespace or RBAC object (a plain object is a CREATE). `--request FILE` names it explicitly. `--kubeconfig`
adds a cluster's policies, bindings, CRDs, namespaces and params (read-only; `--cluster-kinds` its objects too).
`--now` sets the simulation's time (Kyverno DeletingPolicies report their next scheduled run after it).
Exit status: 0 admitted, 1 denied, 2 unusable input (unreadable file, YAML error, invalid policy, CEL
compile error, no request). Input problems are printed as FILE:LINE:COLUMN: severity: message.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from evaluator.admission.loading import NamedText
from evaluator.cli.commands import UNUSABLE, add_command, add_output_argument
from evaluator.cli.located import is_error, located
from evaluator.cli.render import render_result
from evaluator.cli.yaml_text import chunks, parse_documents, read_chunk, without_document
from evaluator.k8s import kinds
from evaluator.simulation import simulate

# Kinds that are cluster state, never the request: policies, bindings, CRDs, namespaces, RBAC, exceptions.
CLUSTER_KINDS = (
    kinds.ADMISSION_KINDS
    | kinds.KYVERNO_POLICY_KINDS
    | kinds.KYVERNO_VALIDATING_POLICY_KINDS
    | kinds.KYVERNO_GENERATING_POLICY_KINDS
    | kinds.KYVERNO_DELETING_POLICY_KINDS
    | kinds.RBAC_KINDS
    | {kinds.CUSTOM_RESOURCE_DEFINITION, kinds.NAMESPACE, kinds.POLICY_EXCEPTION}
)
ADMITTED, DENIED = 0, 1


def register(commands: Any) -> None:
    parser = add_command(commands, "simulate", "admit or deny one request against policies", __doc__, run)
    parser.add_argument(
        "-f", "--filename", action="append", required=True, help="YAML/JSON file (repeatable, - for stdin)"
    )
    parser.add_argument("--request", help="file holding the request (else taken from the -f documents)")
    parser.add_argument(
        "--now",
        type=_instant,
        metavar="2026-01-31T12:00:00Z",
        help="the simulation's current time (UTC unless an offset is given): Kyverno DeletingPolicies' next "
        "scheduled run is the first after it (default: the current time)",
    )
    add_output_argument(parser, "admissionreview")
    add_version_argument(parser)
    from evaluator.cli.cluster_source import add_arguments

    add_arguments(parser)


def add_version_argument(
    parser: argparse.ArgumentParser, default: str | None = "newest", help_default: str = ""
) -> None:
    """`--kubernetes-version 1.31`: simulate that release's API server (default: the newest; `default=None`
    leaves it unset, and `help_default` says what applies then)."""
    from evaluator.cel.versions import NEWEST, SUPPORTED_VERSIONS, parse_version

    def version(text: str) -> str:
        try:
            return parse_version(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument(
        "--kubernetes-version",
        type=version,
        default=NEWEST if default == "newest" else default,
        metavar="1.N",
        help=f"the Kubernetes release to simulate ({SUPPORTED_VERSIONS[0]} to {NEWEST}; default "
        f"{help_default or NEWEST})",
    )


def _instant(text: str) -> dt.datetime:
    try:
        found = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date and time: {text!r}") from None
    return found if found.tzinfo else found.replace(tzinfo=dt.timezone.utc)


def read(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text()


def _is_request(doc: Any) -> bool:
    return isinstance(doc, dict) and (
        doc.get("kind") == "AdmissionReview" or "operation" in doc or ("object" in doc and "apiVersion" not in doc)
    )


def request_position(
    documents: Sequence[Any],
    may_be_request: Callable[[int], bool] | None = None,
    may_be_binding: Callable[[int], bool] | None = None,
) -> int | None:
    """The index of the request among `documents` (None entries: documents that could not be read). The
    predicates say which documents can be skipped unread: only those for which they say False."""
    for i in range(len(documents)):
        if (may_be_request is None or may_be_request(i)) and _is_request(documents[i]):
            return i
    bindings = [documents[i] for i in range(len(documents)) if may_be_binding is None or may_be_binding(i)]
    for i in range(len(documents) - 1, -1, -1):
        if _could_be_request(documents[i], bindings):
            return i
    return None


def _could_be_request(doc: Any, documents: list[Any]) -> bool:
    """Not an AdmissionRequest, but an object that is not cluster state (`documents` for their bindings)."""
    kind = doc.get("kind") if isinstance(doc, dict) else None
    return (
        isinstance(doc, dict)
        and kind not in CLUSTER_KINDS
        and not str(kind).endswith("List")
        and not _is_param(doc, documents)
    )


def _is_param(doc: dict, documents: list[Any]) -> bool:
    """A document some binding names as its param (so it is cluster state, not the request)."""
    name = (doc.get("metadata") or {}).get("name")
    for other in documents:
        if isinstance(other, dict) and other.get("kind") in kinds.ADMISSION_BINDING_KINDS:
            ref = (other.get("spec") or {}).get("paramRef") or {}
            if ref.get("name") and ref.get("name") == name:
                return True
    return False


def load_documents_of(texts: list[str]) -> list[Any]:
    """The documents of `texts` as data (what could be read; the engine reports the rest)."""
    documents: list[Any] = []
    for text in texts:
        records, _ = _parse(text, "<input>")
        documents += [r.data for r in records]
    return documents


def read_files(paths: list[str]) -> list[tuple[str, str, dict | None]]:
    """(name, text, problem) per path; an unreadable file gives a problem instead of text."""
    out: list[tuple[str, str, dict | None]] = []
    for path in paths:
        name = "<stdin>" if path == "-" else path
        try:
            out.append((name, read(path), None))
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            out.append((name, "", {"severity": "error", "source": name, "message": f"cannot read file: {reason}"}))
    return out


def _parse(text: str, name: str) -> tuple[list[Any], list[dict]]:
    from evaluator.admission.documents import load_documents

    records, problems = load_documents(text, name)
    return records, [{"severity": "error", **p.to_dict()} for p in problems]


# A document is read before the request is chosen only when its text could make it one (`_is_request`: the
# words below, or a backslash, the only way a quoted scalar spells a word without its letters in a row) or
# could name a param (a binding), or when it is among the last documents looked at: a large input of
# cluster objects is read once, by the engine, instead of twice.
_REQUEST_WORDS = ("AdmissionReview", "operation", "object", "\\")
_BINDING_WORDS = ("Binding", "\\")


class _Documents(Sequence[Any]):
    """The documents of the -f files, each read when first indexed (None: empty or broken)."""

    def __init__(self, files: list[tuple[str, str]]) -> None:
        self.files = files
        self.pieces = [
            (position, offset, chunk) for position, (_, text) in enumerate(files) for offset, chunk in chunks(text)
        ]
        self.read: dict[int, tuple[int, Any] | None] = {}

    def __len__(self) -> int:
        return len(self.pieces)

    def __getitem__(self, i: Any) -> Any:
        found = self.located(i)
        return None if found is None else found[1]

    def located(self, i: int) -> tuple[int, Any] | None:
        """(1-based first line, data) of document `i`, or None."""
        if i not in self.read:
            position, offset, chunk = self.pieces[i]
            self.read[i] = read_chunk(offset, chunk, self.files[position][0])[0]
        return self.read[i]

    def mentions(self, i: int, words: tuple[str, ...]) -> bool:
        chunk = self.pieces[i][2]
        return any(word in chunk for word in words)


def _choose_request(files: list[tuple[str, str]]) -> tuple[list[str], Any, str | None, list[dict]]:
    """(texts without the request document, request, the name of its file, the files' YAML problems: only
    when no request is found) from the -f files; the request is the one `request_position` chooses."""
    documents = _Documents(files)
    chosen = request_position(
        documents, lambda i: documents.mentions(i, _REQUEST_WORDS), lambda i: documents.mentions(i, _BINDING_WORDS)
    )
    texts = [text for _, text in files]
    if chosen is None:
        problems = [problem for name, text in files for problem in parse_documents(text, name)[1]]
        return texts, None, None, problems
    position = documents.pieces[chosen][0]
    line, data = documents.located(chosen)  # type: ignore[misc]  # the chosen one was read
    texts[position] = without_document(texts[position], line)
    return texts, data, files[position][0], []


def run(args: argparse.Namespace) -> int:
    read_back = read_files(args.filename)
    problems = [problem for _, _, problem in read_back if problem]
    files = [(name, text) for name, text, problem in read_back if not problem]
    if args.request:
        [(name, text, problem)] = read_files([args.request])
        documents, request_problems = parse_documents(text, name) if not problem else ([], [problem])
        problems += request_problems
        request = documents[0][1] if documents else None
        texts = [text for _, text in files]
        if request is None and not request_problems:
            problems.append({"severity": "error", "source": name, "message": "no request found in this file"})
    else:
        texts, request, request_file, file_problems = _choose_request(files)
        name = request_file or ""
        if request is None:
            problems += file_problems
            problems.append(
                {
                    "severity": "error",
                    "source": ", ".join(n for n, _ in files) or "<input>",
                    "message": "no request found (give a plain object, an AdmissionRequest or --request FILE)",
                }
            )
    if request is None:
        return _report_unusable(args, problems)
    # each text named by its file: every message and `source` names the file
    named = [NamedText(text, name) for text, (name, _) in zip(texts, files)]
    if getattr(args, "kubeconfig", None):  # the cluster's state beside the files' (never the request)
        from evaluator.cli.cluster_source import cluster_documents

        cluster_texts, cluster_problems = cluster_documents(args)
        named += cluster_texts
        problems += cluster_problems
    result = simulate(
        named,
        request,
        request_name=name or None,  # the request's errors name its file
        now=getattr(args, "now", None),
        kubernetes_version=getattr(args, "kubernetes_version", None),
        type_checks=args.output == "json",  # only the JSON output shows `typeChecking`
    )
    result["errors"] = problems + result["errors"]
    _print(args.output, result)
    # a request the API server cannot decode (400) or an engine crash (500) comes with its error too; a
    # webhook's denial may also be a 400, and is still a denial
    if any(is_error(p) for p in result["errors"]):
        return UNUSABLE
    return ADMITTED if result["allowed"] else DENIED


def _report_unusable(args: argparse.Namespace, problems: list[dict]) -> int:
    if args.output == "json":
        print(json.dumps({"allowed": None, "errors": problems}, indent=2))
    elif args.output == "junit":
        from evaluator.cli import junit  # each output's module only when asked for (cold start)

        print(junit.simulate_report({"allowed": None, "errors": problems}))
    for problem in problems:
        print(located(problem), file=sys.stderr)
    return UNUSABLE


def _print(output: str, result: dict) -> None:
    if output == "admissionreview":
        from evaluator.formats.admission_review import review_of

        review = review_of(result)
        if review is not None:
            print(json.dumps(review, indent=2))
        for problem in result["errors"]:
            print(located(problem), file=sys.stderr)
        return
    if output == "json":
        print(json.dumps(result, indent=2, sort_keys=False))
        return
    if output == "junit":
        from evaluator.cli import junit

        print(junit.simulate_report(result))
    else:
        errors = sum(is_error(p) for p in result["errors"])
        if errors:
            print(f"UNUSABLE INPUT: {errors} error(s), listed on stderr; the decision below leaves out what they name")
        print(render_result({**result, "errors": []}))
    for problem in result["errors"]:
        print(located(problem), file=sys.stderr)
