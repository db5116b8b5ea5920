"""Every job the evaluation workers run: plain data in, plain data out, no Django.

Module-level functions, pickled by name to the workers. The live room's jobs return results already encoded
as JSON text (big results are encoded once, in the worker, never parsed again in the server).
"""

from __future__ import annotations

import datetime as dt

import evaluator.cel as cel
from evaluator import mcp_server
from evaluator.expression import evaluate_expression
from playground.core import json_text
from playground.evaluation import service as evaluation
from playground.evaluation.workshop import engine

# Type checks of document sets up to this size come with their evaluation (`evaluate_texts`): a few
# policies' checks cost less than a round trip, and a big set's would hold its results up.
EAGER_TYPECHECK_CHARS = 16 * 1024


def _summary(result: dict) -> dict:
    """What a verdict needs of a result."""
    return {
        "allowed": result.get("allowed"),
        "warnings": result.get("warnings") or [],
        "status": {"message": (result.get("status") or {}).get("message")},
    }


def evaluate_texts(
    texts: list[str],
    request_texts: list[str],
    kubernetes_version: str | None = None,
    with_typecheck: bool = False,
    received: list[dt.datetime] | None = None,
) -> tuple[dict, list[tuple[dict, str]]]:
    """The live room: document errors and, per request text, (summary, result as JSON text). `with_typecheck`
    adds the type checks (`typecheck`) for a small document set: the room shows them a moment later, and
    asking for them then would cost another round trip to the worker that holds these documents anyway.
    `received`: when each request was received (its audit event's clock), default now."""
    loaded = evaluation.load_documents(texts, kubernetes_version)
    errors = {"document_errors": loaded.document_errors, "general_errors": loaded.general_errors}
    results = []
    for index, text in enumerate(request_texts):
        # Kept encoded by the server (live_jobs), not here too: a workshop's thousands of results held ~90 MiB
        # a worker, and every idle collection walked them.
        result = evaluation.run_request(loaded, text, keep=False, now=received[index] if received else None)
        results.append((_summary(result), encode_result(result)))
    if with_typecheck and sum(len(text) for text in texts) <= EAGER_TYPECHECK_CHARS:
        try:
            errors["typecheck"] = loaded.typecheck()
        except Exception:  # a bug of the checker's must not cost the results: the room asks for them apart
            pass
    return errors, results


def encode_result(result: dict) -> str:
    """A result as JSON text, encoded once, here in the worker (json_text.dumps)."""
    return json_text.dumps(result)


def typecheck(texts: list[str], kubernetes_version: str | None = None) -> dict:
    return evaluation.load_documents(texts, kubernetes_version).typecheck()


def evaluate_project(
    documents: list[dict], requests: list[dict], version: int | None = None, kubernetes_version: str | None = None
) -> dict:
    """REST: the whole EvaluationResult."""
    return evaluation.evaluate(documents, requests, version, kubernetes_version=kubernetes_version)


def evaluate_workshop(ctx: engine.Context) -> dict:
    return engine.evaluate(ctx)


def evaluate_cel(expression: str, variables: dict) -> dict:
    """``{"result", "type", "cost"}`` or ``{"error": {"kind", "message", "line", "column"}}`` (the engine's
    error classes stay in the worker; the API maps the kind to its error code)."""
    try:
        return evaluate_expression(expression, variables)
    except cel.CELError as exc:
        kind = (
            "compile"
            if isinstance(exc, cel.CompileError)
            else "evaluation"
            if isinstance(exc, cel.EvaluationError)
            else "cel"
        )
        return {"error": {"kind": kind, "message": exc.message, "line": exc.line, "column": exc.column}}


def export_project(fmt: str, project: dict) -> tuple[bytes, str, str, list[str]]:
    """A project in an export format (some run the engine: kyverno-test rows, AdmissionReviews)."""
    from evaluator.format_registry import FORMATS

    exporter = FORMATS[fmt].exporter
    assert exporter is not None
    return exporter(project)


def mcp_tool(name: str, arguments: dict) -> dict:
    """One MCP tool call of the web mount (playground/mcp_http.py)."""
    return mcp_server.call_tool(name, arguments)


def warm_up() -> None:
    """Load the engine's lazy parts (schemas, CEL library) once per worker, before it takes real work."""
    engine.warm_up()
    evaluate_expression("1 + 1", {})
