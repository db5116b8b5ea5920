"""The MCP server (Model Context Protocol, official `mcp` SDK): the simulator as tools for AI assistants and
editors, as the Kyverno Playground offers. Django-free: `admission-playground mcp` serves it over stdio, and
the web app mounts the same tools over streamable HTTP at /mcp (playground/mcp_http.py).

Tools: simulate (one request against documents, the same result as POST /api/v1/evaluate gives per
request), evaluate_cel, typecheck (the ValidatingAdmissionPolicies' type checks), run_tests (a project file,
as `admission-playground test` runs it). Every call is bounded like the engine (CEL cost and deadline)
and never raises for bad input: problems come back in the result.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from evaluator.json_safe import json_safe

NAME = "admission-playground"
INSTRUCTIONS = (
    "Simulate Kubernetes admission (ValidatingAdmissionPolicy, MutatingAdmissionPolicy, Kyverno) "
    "for documents (policies, bindings, params, namespaces as YAML texts) and a request (an object, "
    "an AdmissionRequest or an AdmissionReview), evaluate CEL, type-check policies, and run a "
    "project's expected outcomes."
)
MAX_TEXT = 2 * 1024 * 1024


def _bounded(texts: list[str]) -> str | None:
    total = sum(len(t) for t in texts)
    return f"input larger than {MAX_TEXT // 1024} KiB" if total > MAX_TEXT else None


def simulate(documents: list[str], request: str) -> dict[str, Any]:
    """Admit or deny one request against the documents: the engine's full result (allowed, status,
    warnings, per-policy outcomes and traces, patched object, errors)."""
    from evaluator.simulation import Simulation

    problem = _bounded([*documents, request])
    if problem:
        return {"allowed": None, "errors": [{"severity": "error", "message": problem}]}
    return json_safe(Simulation(list(documents)).run(request, type_checks=False))


def evaluate_cel(expression: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate one CEL expression in the Kubernetes admission environment (variables such as object,
    oldObject, request, params): its value, CEL type and cost, or the compile/evaluation error."""
    import evaluator.cel as cel
    from evaluator.expression import evaluate_expression

    problem = _bounded([expression])
    if problem:
        return {"error": {"code": "too_large", "message": problem}}
    try:
        return json_safe(evaluate_expression(expression, dict(variables or {})))
    except cel.CompileError as exc:
        return {"error": {"code": "compile_error", "message": exc.message, "line": exc.line, "column": exc.column}}
    except cel.CELError as exc:
        return {"error": {"code": "evaluation_error", "message": exc.message, "line": exc.line, "column": exc.column}}


def typecheck(documents: list[str]) -> dict[str, Any]:
    """Type-check the ValidatingAdmissionPolicies among the documents against their matched types, as the
    API server's status.typeChecking reports; also any problem loading the documents."""
    from evaluator.simulation import Simulation

    problem = _bounded(documents)
    if problem:
        return {"typeChecks": {}, "errors": [{"severity": "error", "message": problem}]}
    simulation = Simulation(list(documents))
    return json_safe({"typeChecks": simulation.type_checks(), "errors": simulation.errors})


def run_tests(project: str) -> dict[str, Any]:
    """Run a project file (the gallery's YAML: documents + requests with expected outcomes) and return each
    test's verdict, as `admission-playground test` does."""
    import json

    from evaluator.project_tests import as_json, run_project
    from evaluator.formats.bounded_yaml import FormatError
    from evaluator.formats.project_files import read_project

    try:
        report = run_project(read_project(project, "project.yaml"), Path("project.yaml"), project)
    except FormatError as exc:
        return {"summary": None, "errors": [{"severity": "error", "message": str(exc)}]}
    return json.loads(as_json([report]))


TOOLS = (simulate, evaluate_cel, typecheck, run_tests)


def _in_thread(fn: Callable[..., dict[str, Any]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The tool as a coroutine running `fn` in a worker thread: a simulation is CPU-bound and must not hold
    the event loop (on the web app, daphne's loop serves every other request too). Same signature and doc."""
    import anyio.to_thread

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    return call


def build_server(**settings: Any):
    """A FastMCP server with the tools; `settings` go to FastMCP (HTTP options for the web mount)."""
    from mcp.server.fastmcp import FastMCP

    server = FastMCP(NAME, instructions=INSTRUCTIONS, **settings)
    for tool in TOOLS:
        server.add_tool(_in_thread(tool), name=tool.__name__, structured_output=True)
    return server


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "mcp",
        help="serve the simulator to AI assistants (MCP over stdio)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    build_server().run("stdio")
    return 0
