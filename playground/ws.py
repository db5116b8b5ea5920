"""The base of every WebSocket consumer (project room, co-editing, workshop rooms): one place for what they
share, so a rule about messages, tokens or failures is written once and holds for every socket.

- A message is validated by the serializer registered for its type (`messages`, api/messages.py: the
  edge validator of the REST bodies too) and its validated values only are dispatched by the `handlers`
  name table; every failure is answered with an `error` (clientSeq kept) and one log line for ours — no
  message can end the connection.
- Tokens travel in the first message, never in the URL (proxy logs, browser history): with `needs_hello`,
  the socket takes nothing but `hello {token}` until `authenticate()` accepts it, and closes with 4403
  (4404 when what the token names is gone) otherwise.
- Writes (`write_types`) need `can_edit`; `limit()` spends one of the connection's tokens (rate limit).
- `every()` runs a heartbeat; tasks it starts end with the connection.
- While Redis or the database is down a new connection is told so and closed with 4503 (the pages reconnect).

Broadcasts leave a consumer only after the service call returned, and services commit before they return
(their `transaction.atomic()` is the outermost one here), so no client sees a change that could still be
rolled back; REST views broadcast through `transaction.on_commit` (services/broadcast.py, used by
services/notify.py and workshops/services/groups.py).
"""

from __future__ import annotations

import asyncio
import random
import logging
from collections.abc import Awaitable, Callable

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from rest_framework.serializers import Serializer

from playground.core import metrics, outage
from playground.core.errors import ServiceError, forbidden
from playground.core.rate_limit import TokenBucket
from playground.ws_messages import client_seq, error_message, internal_error, parse_client_message

logger = logging.getLogger(__name__)


class RoomConsumer(AsyncJsonWebsocketConsumer):
    area = "room"  # how logs and outage reports name this kind of socket
    handlers: dict[str, str] = {}  # message type → method name
    messages: dict[str, type[Serializer]] = {}  # message type → its serializer (api/messages.py)
    write_types: frozenset[str] = frozenset()  # messages that need `can_edit`
    needs_hello = False  # nothing but `hello {token}` until `authenticate()` accepted the token
    hello_refusal = "send hello with your token first"
    authenticated = False
    can_edit = True
    key = ""  # what the socket is about (project id, room code), for log lines

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tasks: list[asyncio.Task] = []
        self.bucket = TokenBucket()

    # -- connection ------------------------------------------------------------------------------------

    async def websocket_connect(self, message):
        """Connect; while Redis or the database is down, say so and close (the page reconnects by itself)."""
        metrics.websocket_opened(self.area)  # closed in websocket_disconnect, which every connection gets
        try:
            await super().websocket_connect(message)
        except Exception as exc:
            if not outage.is_outage(exc):
                metrics.websocket_closed(self.area)
                raise
            outage.report(self.area, exc)
            self.authenticated = False
            try:
                await self.refuse(outage.unavailable(), 4503)
            except Exception:  # already accepted: just close
                await self.close(code=4503)

    async def websocket_disconnect(self, message):
        metrics.websocket_closed(self.area)
        await super().websocket_disconnect(message)

    async def refuse(self, error: ServiceError, close_code: int) -> None:
        await self.accept()
        await self.send_error(error)
        await self.close(code=close_code)

    async def authenticate(self, token: str) -> None:
        """Accept the token from `hello` (join groups, greet) or raise ServiceError."""
        raise forbidden()

    def every(self, seconds: float, beat: Callable[[], Awaitable[None]]) -> None:
        """Run `beat` every `seconds` while connected; a failing beat is reported and the next one tries again.

        The first beat comes after a random 0.5-1.5 `seconds`: a room that many joined at once (a workshop)
        would otherwise beat in lockstep, every connection's database write in the same instant."""

        async def loop() -> None:
            delay = seconds * random.uniform(0.5, 1.5)
            while True:
                await asyncio.sleep(delay)
                delay = seconds
                try:
                    await beat()
                except Exception as exc:
                    outage.report(f"{self.area} heartbeat", exc)

        self.tasks.append(asyncio.create_task(loop()))

    def stop_tasks(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks.clear()

    # -- client → server -------------------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Check one message and run its handler; every failure is answered, none drops the connection."""
        message: dict = {}
        try:
            message = parse_client_message(text_data, bytes_data, self.messages)
            kind = message["type"]
            if kind == "hello" and self.needs_hello and not self.authenticated:
                await self.first_hello(message)
                return
            if self.needs_hello and not self.authenticated:
                raise ServiceError("forbidden", self.hello_refusal, 403)
            if kind in self.write_types and not self.can_edit:
                raise forbidden()
            await getattr(self, self.handlers[kind])(message)
        except ServiceError as exc:
            await self.send_error(exc, client_seq(message))
        except Exception as exc:
            if outage.is_outage(exc):
                outage.report(self.area, exc)
                await self.send_error(outage.unavailable(), client_seq(message))
            else:
                logger.exception("%s %s: %s message failed", self.area, self.key, message.get("type"))
                await self.send_error(internal_error(), client_seq(message))
        finally:
            metrics.websocket_message(self.area, message.get("type"), self.handlers)  # {}: it did not parse

    async def first_hello(self, message: dict) -> None:
        token = message.get("token")
        try:
            if not isinstance(token, str) or not token:
                raise ServiceError("forbidden", self.hello_refusal, 403)
            await self.authenticate(token)
        except ServiceError as exc:
            await self.send_error(exc, client_seq(message))
            await self.close(code=4404 if exc.status == 404 else 4403)
            return
        self.authenticated = True
        await getattr(self, self.handlers["hello"])(message)

    def limit(self, what: str) -> None:
        """Spend one of this connection's tokens, or refuse (429) when it has none left."""
        if not self.bucket.take():
            raise ServiceError("rate_limited", f"too many {what}; try again shortly", 429)

    # -- server → client -------------------------------------------------------------------------------

    async def send_error(self, error: ServiceError, seq=None) -> None:
        await self.send_json(error_message(error, seq))
