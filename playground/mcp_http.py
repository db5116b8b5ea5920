"""The MCP server (evaluator/mcp_server.py) on the web app: streamable HTTP at /mcp, beside Django.

Stateless JSON mode: every POST is one self-contained exchange, so any worker can answer and nothing is
kept per client. Daphne sends no ASGI lifespan events, so the SDK's session manager (which needs a running
task group) is started on first use in a task of its own, once per event loop. Host and Origin headers
are checked against ALLOWED_HOSTS (DNS rebinding), as Django checks them for the other routes.

An MCP call is an evaluation like any other, held to the REST API's rules: a body beyond
DATA_UPLOAD_MAX_MEMORY_SIZE is refused (413), each `tools/call` counts against the client's
PLAYGROUND_EVALUATION_RATE (the same counter as the REST endpoints: 429 with a JSON-RPC error and
Retry-After), texts are held to the project size limits, and the tool runs in the supervised evaluation
workers (its wall-clock and memory bounds come back as a tool error, the worker is replaced).
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest

PATH = "/mcp"
TOO_LARGE = -32600  # JSON-RPC "Invalid Request"
THROTTLED = -32000  # JSON-RPC's range for server-defined errors


def _limits():
    from evaluator.mcp_server import SizeLimits

    return SizeLimits(
        settings.PLAYGROUND_MAX_DOCUMENT_BYTES, settings.PLAYGROUND_MAX_PROJECT_BYTES, settings.PLAYGROUND_MAX_ITEMS
    )


async def run_in_pool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The web mount's runner: the tool in the supervised evaluation workers; their refusals as tool errors."""
    from mcp.server.fastmcp.exceptions import ToolError

    from playground.evaluation import jobs, pool
    from playground.core.errors import ServiceError

    try:
        return await pool.run(jobs.mcp_tool, name, arguments)
    except ServiceError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None


def _tool_calls(body: bytes) -> list[Any]:
    """The ids of the `tools/call` messages in a JSON-RPC body (one message or a batch)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return []  # the SDK answers with a parse error
    messages = data if isinstance(data, list) else [data]
    return [m.get("id") for m in messages if isinstance(m, dict) and m.get("method") == "tools/call"]


def _throttle_wait(scope, calls: int) -> float | None:
    """None when the client may make `calls` more evaluations now; else the seconds to wait (REST's throttle,
    its counter and its client address)."""
    from playground.api.throttles import EvaluationThrottle

    headers = dict(scope.get("headers") or [])
    meta = {"REMOTE_ADDR": (scope.get("client") or ("",))[0]}
    forwarded = headers.get(b"x-forwarded-for")
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded.decode("latin-1")
    request = HttpRequest()
    request.META = meta
    for _ in range(calls):
        throttle = EvaluationThrottle()
        if not throttle.allow_request(request, None):
            return throttle.wait() or 1.0
    return None


async def _send_error(send, status: int, request_id: Any, code: int, message: str, data: dict, headers=()) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message, "data": data}})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


async def _read_body(receive, limit: int) -> bytes | None:
    """The whole request body, or None when it is larger than `limit`."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _security():
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = [h for h in settings.ALLOWED_HOSTS if h]
    if "*" in hosts or any(h.startswith(".") for h in hosts):
        # Django matches these patterns itself; the SDK only knows exact hosts, so it leaves them to Django's list
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed = hosts + [f"{h}:*" for h in hosts]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed,
        allowed_origins=origins + [f"{o}:*" for o in origins],
    )


class MCPMount:
    """ASGI app serving the MCP tools at PATH."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None
        self._app: Any = None

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        from evaluator.mcp_server import build_server

        server = build_server(
            limits=_limits(),
            runner=run_in_pool,
            stateless_http=True,
            json_response=True,
            streamable_http_path=PATH,
            transport_security=_security(),
        )
        self._app = server.streamable_http_app()
        ready = asyncio.Event()

        async def keep_running() -> None:
            async with server.session_manager.run():
                ready.set()
                await asyncio.Event().wait()

        self._task = loop.create_task(keep_running())
        self._loop, self._ready = loop, ready

    async def __call__(self, scope, receive, send) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._start(loop)
        assert self._ready is not None
        await self._ready.wait()
        if scope.get("method") == "POST":
            body = await _read_body(receive, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
            if body is None:
                message = f"request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"
                await _send_error(send, 413, None, TOO_LARGE, message, {"code": "too_large"})
                return
            calls = _tool_calls(body)
            wait = await sync_to_async(_throttle_wait, thread_sensitive=False)(scope, len(calls)) if calls else None
            if wait is not None:
                seconds = max(1, math.ceil(wait))
                message = f"Request was throttled. Expected available in {seconds} seconds."
                data = {"code": "throttled", "retryAfter": seconds}
                retry = [(b"retry-after", str(seconds).encode())]
                await _send_error(send, 429, calls[0], THROTTLED, message, data, retry)
                return
            receive = _replay(body, receive)
        await self._app(scope, receive, send)


def _replay(body: bytes, receive):
    """A `receive` that gives the body already read, then the connection's own messages (its disconnect)."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def route_http(django_app, mcp_app: MCPMount):
    """The HTTP app: PATH (and below) to the MCP server, everything else to Django."""

    async def app(scope, receive, send):
        path = scope.get("path", "")
        if path == PATH or path.startswith(PATH + "/"):
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return app
