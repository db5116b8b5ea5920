"""The MCP server (evaluator/mcp_server.py) on the web app: streamable HTTP at /mcp, beside Django.

Stateless JSON mode: every POST is one self-contained exchange, so any worker can answer and nothing is
kept per client. Daphne sends no ASGI lifespan events, so the SDK's session manager (which needs a running
task group) is started on first use in a task of its own, once per event loop. Host and Origin headers
are checked against ALLOWED_HOSTS (DNS rebinding), as Django checks them for the other routes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings

PATH = "/mcp"


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
            stateless_http=True, json_response=True, streamable_http_path=PATH, transport_security=_security()
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
        await self._app(scope, receive, send)


def route_http(django_app, mcp_app: MCPMount):
    """The HTTP app: PATH (and below) to the MCP server, everything else to Django."""

    async def app(scope, receive, send):
        path = scope.get("path", "")
        if path == PATH or path.startswith(PATH + "/"):
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return app
