"""ASGI entry point: HTTP through Django (and /mcp through the MCP server), WebSockets through Channels
(served by daphne)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

# Build the Django app first: it sets Django up before the routing imports consumers.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from playground.mcp_http import MCPMount, route_http  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.shutdown import install as drain_on_sigterm  # noqa: E402

application = ProtocolTypeRouter(
    {
        # /mcp: the MCP server over streamable HTTP (issue 19); everything else: Django
        "http": route_http(django_asgi_app, MCPMount()),
        "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)

# Under daphne, SIGTERM tells every WebSocket to reconnect and waits for them before the server stops.
if drain_on_sigterm():  # daphne's own process (not a test importing the application)
    from twisted.internet import reactor

    from playground.evaluation import pool

    # The evaluation workers start and warm up with the server, not with its first visitor, whose first
    # evaluation would otherwise wait for them (seconds on a loaded machine) where the second does not.
    reactor.callWhenRunning(pool.warm_up)  # type: ignore[attr-defined]
    # ...and stop before the process exits: a supervisor seeing its worker end at exit must not start another.
    reactor.addSystemEventTrigger("before", "shutdown", pool.shutdown)  # type: ignore[attr-defined]

# Everything start-up made (modules, settings, URL and schema objects) lives as long as the process: frozen,
# the collector's full passes no longer walk it. They paused the event loop for 60-90 ms every few seconds
# in a 100-socket room (10-30 ms frozen).
gc.freeze()
