"""Liveness of the pieces a request depends on: the database, the channel layer and the evaluation workers.

Without the channel layer (Redis) the server is "degraded", not down: REST and the pages keep serving and
the sockets come back by themselves once it returns, so the report stays a 200 for a load balancer's check
(views.healthz); without the database or the evaluation workers it is an "error" (503). A server shutting
down (SIGTERM, shutdown.py) is "draining" (503): a load balancer stops sending it new clients."""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from playground.core import drain
from playground.evaluation import pool

logger = logging.getLogger(__name__)

CHANNEL_LAYER_TIMEOUT_SECONDS = 2.0


def check_database() -> str:
    """Run a trivial query on the default database."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not ok"; details go to the log only
        logger.warning("health: database check failed: %r", exc)
        return "error"
    return "ok"


async def check_channel_layer() -> str:
    """Send a message to a fresh channel and read it back."""
    layer = get_channel_layer()
    if layer is None:
        return "error"
    try:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "health.ping"})
        message = await asyncio.wait_for(layer.receive(channel), CHANNEL_LAYER_TIMEOUT_SECONDS)
    except Exception as exc:
        logger.warning("health: channel layer check failed: %r", exc)
        return "error"
    return "ok" if message.get("type") == "health.ping" else "error"


def _status(database: str, channel_layer: str, evaluation: str) -> str:
    if drain.draining():
        return "draining"
    if database != "ok" or evaluation != "ok":
        return "error"
    return "ok" if channel_layer == "ok" else "degraded"


async def health_report() -> dict:
    database = await sync_to_async(check_database)()
    channel_layer = await check_channel_layer()
    workers = pool.health()  # a dead worker shows here until its supervisor replaced it (within a second)
    return {
        "status": _status(database, channel_layer, workers["status"]),
        "database": database,
        "channel_layer": channel_layer,
        "evaluation": workers["status"],
        "evaluation_workers": workers["workers"],
    }
