"""The MCP server (Model Context Protocol, official `mcp` SDK): the simulator as tools for AI assistants and
editors, as the Kyverno Playground offers. Django-free: `admission-playground mcp` serves it over stdio, and
the web app mounts the same tools over streamable HTTP at /mcp (playground/mcp_http.py), where each call runs
in the supervised evaluation workers under the REST API's rate limit and size limits.

Tools: simulate (one request against documents, the same result as POST /api/v1/evaluate gives per
request), evaluate_cel, typecheck (the ValidatingAdmissionPolicies' type checks), run_tests (a project file,
as `admission-playground test` runs it), impact (base vs head documents over objects or an audit log: what
would the change break, as `admission-playground impact` and POST /api/v1/impact/jobs answer). Each takes `kubernetes_version` ("1.31"; default the newest) as the
API and `--kubernetes-version` do, and reports the release it simulated as `kubernetesVersion`. Every call is
bounded like the engine (CEL cost and deadline) and never raises for bad input: problems come back in the
result. Inputs beyond the size limits, and calls the runner refuses (a bound exceeded, too many calls), are
tool errors (`isError`), so the assistant sees why.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.json_safe import json_safe

NAME = "admission-playground"
INSTRUCTIONS = (
    "Simulate Kubernetes admission (ValidatingAdmissionPolicy, MutatingAdmissionPolicy, Kyverno) "
    "for documents (policies, bindings, params, namespaces as YAML texts) and a request (an object, "
    "an AdmissionRequest or an AdmissionReview), evaluate CEL, type-check policies, run a "
    "project's expected outcomes, and compare two policy sets over a cluster dump or an audit log "
    "(impact: what would this policy change break?). Give kubernetes_version (e.g. 1.31) to simulate an "
    "older API server."
)


def _version(kubernetes_version: str | None) -> tuple[str, None] | tuple[None, str]:
    """The release as "1.N" (the newest when None), or why it is not one."""
    from evaluator.cel.versions import NEWEST, parse_version

    try:
        return parse_version(kubernetes_version if kubernetes_version is not None else NEWEST), None
    except ValueError as exc:
        return None, str(exc)


def _problem(message: str) -> list[dict[str, Any]]:
    return [{"severity": "error", "source": "kubernetes_version", "message": message, "document": None}]


def simulate(documents: list[str], request: str, kubernetes_version: str | None = None) -> dict[str, Any]:
    """Admit or deny one request against the documents: the engine's full result (allowed, status,
    warnings, per-policy outcomes and traces, patched object, errors, kubernetesVersion)."""
    import evaluator

    version, problem = _version(kubernetes_version)
    if problem:
        return {"allowed": None, "errors": _problem(problem)}
    return json_safe(evaluator.load(list(documents), kubernetes_version=version).run(request, type_checks=False))


def evaluate_cel(
    expression: str, variables: dict[str, Any] | None = None, kubernetes_version: str | None = None
) -> dict[str, Any]:
    """Evaluate one CEL expression in the Kubernetes admission environment (variables such as object,
    oldObject, request, params) of a Kubernetes release: its value, CEL type and cost, or the
    compile/evaluation error."""
    import evaluator.cel as cel
    from evaluator.cel.versions import simulating
    from evaluator.expression import evaluate_expression

    version, problem = _version(kubernetes_version)
    if problem:
        return {"error": {"code": "invalid_request", "message": problem}}
    try:
        with simulating(version):
            outcome = evaluate_expression(expression, dict(variables or {}))
        return json_safe({**outcome, "kubernetesVersion": version})
    except cel.CompileError as exc:
        return {"error": {"code": "compile_error", "message": exc.message, "line": exc.line, "column": exc.column}}
    except cel.CELError as exc:
        return {"error": {"code": "evaluation_error", "message": exc.message, "line": exc.line, "column": exc.column}}


def typecheck(documents: list[str], kubernetes_version: str | None = None) -> dict[str, Any]:
    """Type-check the ValidatingAdmissionPolicies among the documents against their matched types, as the
    given release's API server reports in status.typeChecking; also any problem loading the documents."""
    import evaluator

    version, problem = _version(kubernetes_version)
    if problem:
        return {"typeChecks": {}, "errors": _problem(problem)}
    simulation = evaluator.load(list(documents), kubernetes_version=version)
    return json_safe(
        {"typeChecks": simulation.type_checks(), "errors": simulation.errors, "kubernetesVersion": version}
    )


def run_tests(project: str, kubernetes_version: str | None = None) -> dict[str, Any]:
    """Run a project file (the gallery's YAML: documents + requests with expected outcomes) and return each
    test's verdict, as `admission-playground test --kubernetes-version` does."""
    import json

    from evaluator.formats.bounded_yaml import FormatError
    from evaluator.formats.project_files import read_project
    from evaluator.project_tests import as_json, run_project

    version, problem = _version(kubernetes_version)
    if problem:
        return {"summary": None, "errors": _problem(problem)}
    try:
        report = run_project(read_project(project, "project.yaml"), Path("project.yaml"), project, version)
    except FormatError as exc:
        return {"summary": None, "errors": [{"severity": "error", "message": str(exc)}]}
    return {**json.loads(as_json([report])), "kubernetesVersion": version}


def impact(
    base_documents: list[str],
    head_documents: list[str],
    objects: str | None = None,
    audit_log: str | None = None,
    kubernetes_version: str | None = None,
    max_changes: int = 50,
) -> dict[str, Any]:
    """What would this policy change break? Compare the policy documents before (base) and after (head) over
    a corpus: `objects` (a cluster dump: YAML, JSON or a List; each object a CREATE) or `audit_log` (an
    audit.k8s.io/v1 log, JSON lines or an EventList, at level Request or RequestResponse: every create,
    update and delete replayed as its user sent it). Returns the counts (newly denied, newly allowed, newly
    warned, changed messages, new errors; per policy, namespace, kind, user and hour), the first
    `max_changes` changed requests with both answers, a Markdown summary fit for a pull request, and the
    located input problems."""
    from evaluator.mcp_impact import impact_of

    version, problem = _version(kubernetes_version)
    if problem:
        return {"summary": None, "errors": _problem(problem)}
    return json_safe(impact_of(list(base_documents), list(head_documents), objects, audit_log, version, max_changes))


TOOLS = (simulate, evaluate_cel, typecheck, run_tests, impact)
TOOL_NAMES = frozenset(tool.__name__ for tool in TOOLS)


@dataclass(frozen=True)
class SizeLimits:
    """The REST API's size limits (the web app passes its settings; these are their defaults)."""

    document_bytes: int = 1024 * 1024
    project_bytes: int = 5 * 1024 * 1024
    items: int = 200

    def problem(self, arguments: dict[str, Any]) -> str | None:
        """Why these tool arguments are too large, or None."""
        sizes: list[int] = []
        for key in ("documents", "base_documents", "head_documents"):
            documents = arguments.get(key) or []
            if len(documents) > self.items:
                return f"{key}: {len(documents)} items; the limit is {self.items}"
            sizes += [len(str(t).encode("utf-8", "surrogatepass")) for t in documents]
        for key in ("request", "expression"):
            if arguments.get(key) is not None:
                sizes.append(len(str(arguments[key]).encode("utf-8", "surrogatepass")))
        if any(size > self.document_bytes for size in sizes):
            return f"a text is {max(sizes)} bytes; the limit is {self.document_bytes} bytes a document"
        # a corpus (impact's objects or audit log) is held to the project limit as a whole, not a document's
        corpus = ("project", "objects", "audit_log")
        total = sum(sizes) + sum(len(str(arguments.get(k) or "").encode("utf-8", "surrogatepass")) for k in corpus)
        if total > self.project_bytes:
            return f"the input is {total} bytes; the limit is {self.project_bytes} bytes a project"
        return None


Runner = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run a tool by name (what a runner's worker calls)."""
    if name not in TOOL_NAMES:
        raise ValueError(f"unknown tool {name!r}")
    return globals()[name](**arguments)


async def run_in_thread(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The stdio runner: a simulation is CPU-bound and must not hold the event loop."""
    import anyio.to_thread

    return await anyio.to_thread.run_sync(functools.partial(call_tool, name, arguments))


def _tool(fn: Callable[..., dict[str, Any]], limits: SizeLimits, runner: Runner):
    """The tool as a coroutine with `fn`'s signature and doc: sizes checked, then run by `runner`."""
    import inspect

    from mcp.server.fastmcp.exceptions import ToolError

    signature = inspect.signature(fn)

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        problem = limits.problem(arguments)
        if problem:
            raise ToolError(f"too_large: {problem}")
        return await runner(fn.__name__, arguments)

    return call


def build_server(*, limits: SizeLimits | None = None, runner: Runner | None = None, **settings: Any):
    """A FastMCP server with the tools; `settings` go to FastMCP (HTTP options for the web mount). `runner`
    runs a tool by name (default: a thread of this process); it raises ToolError to refuse a call."""
    from mcp.server.fastmcp import FastMCP

    server = FastMCP(NAME, instructions=INSTRUCTIONS, **settings)
    for tool in TOOLS:
        server.add_tool(
            _tool(tool, limits or SizeLimits(), runner or run_in_thread), name=tool.__name__, structured_output=True
        )
    return server


def run(args: argparse.Namespace) -> int:
    build_server().run("stdio")
    return 0
