"""The base of every WebSocket consumer (project room, co-editing, workshop rooms): one place for what they
share, so a rule about messages, tokens or failures is written once and holds for every socket.

- A message is validated by the serializer registered for its type (`messages`, api/messages.py: the
  edge validator of the REST bodies too) and its validated values only are dispatched by the `handlers`
  name table; every failure is answered with an `error` (clientSeq kept) and one log line for ours — no
  message can end the connection (an outage does, below).
- Tokens travel in the first message, never in the URL (proxy logs, browser history): with `needs_hello`,
  the socket takes nothing but `hello {token}` until `authenticate()` accepts it, and closes with 4403
  (4404 when what the token names is gone) otherwise.
- Writes (`write_types`) need `can_edit`; `limit()` spends one of the connection's tokens (rate limit).
- `every()` runs a heartbeat and `spawn()` a task beside the messages; both end with the connection.
- On shutdown (SIGTERM, playground/shutdown.py) every socket is told `reconnect` and closed with 4012,
  after the message it is handling has been answered (`turn`: dispatch and `drain` take it in turn), so an
  edit is either acknowledged or not applied by this connection, never acknowledged and lost; messages after
  that are not handled. The registry of open sockets is process-local (core/drain.py): Redis may be down.
- While Redis or the database is down the socket is told so (`unavailable`) and closed with 4503, and the
  page reconnects by itself: wherever the outage shows — connecting, a message's handler, a group event, a
  heartbeat, a task of the connection, or channels' own read of the channel layer (`channel_receive`, which
  channels awaits beside the client's frames and whose failure would otherwise end the socket with 1011 and
  a traceback). One warning line per kind of socket says so (core/outage.py); leaving during an outage
  still runs `disconnect` (`discard` tolerates the lost layer).

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

from channels.db import aclose_old_connections
from channels.exceptions import StopConsumer
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from rest_framework.serializers import Serializer

from playground.core import drain, json_text, metrics, outage
from playground.core.errors import ServiceError, forbidden
from playground.core.rate_limit import TokenBucket
from playground.ws_messages import client_seq, error_message, internal_error, parse_client_message, refused_seq

logger = logging.getLogger(__name__)

# What `channel_receive` hands to `dispatch` when the channel layer failed: known by identity, so no group
# message can pose as it.
_LAYER_LOST: dict = {"type": "layer.lost"}

RECONNECT_CLOSE_CODE = 4012  # "service restart" (1012, which autobahn refuses to send): come back now


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

    accepted = False
    closing = False  # closed from this side: nothing more is sent (a late result would hit a closed socket)
    unavailable_sent = False  # told `unavailable` and closing: nothing more is read or handled
    drained = False  # told `reconnect` (shutdown) and closing: nothing more is read or handled
    gone = False  # the client left (websocket.disconnect): nothing to drain
    layer_error: BaseException | None = None
    layer_read: Callable[[], Awaitable[dict]]  # channels' read of this connection's channel

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tasks: list[asyncio.Task] = []
        self.bucket = TokenBucket()
        self.turn = asyncio.Lock()  # held by `dispatch` for each message and by `drain`

    @property
    def ended(self) -> bool:
        """Told to go (`unavailable` or `reconnect`) and closing: nothing more is read or handled."""
        return self.unavailable_sent or self.drained

    # -- connection ------------------------------------------------------------------------------------

    async def websocket_connect(self, message):
        metrics.websocket_opened(self.area)  # closed in websocket_disconnect, which every connection gets
        drain.join(self)  # while draining, told to reconnect once connected (`drain` waits for its turn)
        try:
            await super().websocket_connect(message)
        except Exception as exc:
            if not outage.is_outage(exc):  # the consumer ends without a disconnect
                metrics.websocket_closed(self.area)
                drain.leave(self)
            raise

    @property
    def channel_receive(self) -> Callable[[], Awaitable[dict]]:
        """channels reads the channel layer through this (AsyncConsumer.__call__): its own read is wrapped so
        that a lost Redis becomes a `_LAYER_LOST` message for `dispatch`, not an exception out of the consumer."""
        return self.read_layer

    @channel_receive.setter
    def channel_receive(self, read: Callable[[], Awaitable[dict]]) -> None:
        self.layer_read = read

    async def read_layer(self) -> dict:
        if self.ended:
            await asyncio.Event().wait()  # closing: the client's disconnect ends the consumer
        try:
            return await self.layer_read()
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            self.layer_error = exc
            return _LAYER_LOST

    async def dispatch(self, message: dict) -> None:
        """channels' dispatch, with an outage anywhere in a handler answered by `close_unavailable`."""
        if message is _LAYER_LOST:
            await self.close_unavailable(self.layer_error or ConnectionError("channel layer lost"))
            return
        leaving = message.get("type") == "websocket.disconnect"
        if self.ended and not leaving:
            return
        try:
            async with self.turn:
                await self.handle(message)
        except StopConsumer:
            raise
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            if not leaving:
                await self.close_unavailable(exc)
                return
            outage.report(f"{self.area} leaving", exc)
            await aclose_old_connections()
            raise StopConsumer() from None

    async def handle(self, message: dict) -> None:
        """channels' own dispatch, without the `aclose_old_connections` it runs before every message: that is a
        round trip to the sync thread per keystroke and per room message, for connections these consumers never
        use (their database calls go through core/database.db, which looks after its own connections)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def close_unavailable(self, exc: BaseException, seq=None) -> None:
        """Tell the client a backing service is down and close with 4503 (once); the page reconnects."""
        outage.report(self.area, exc)
        if self.unavailable_sent:
            return
        self.unavailable_sent = True
        if not self.accepted:
            await self.accept()
        await self.send_error(outage.unavailable(), seq)
        await self.close(code=4503)

    async def drain(self) -> None:
        """The server is shutting down: once the message being handled has been answered, tell the client to
        reconnect and close with 4012 (core/drain.py calls this for every open socket)."""
        async with self.turn:
            if self.ended or self.closing or self.gone:
                return  # already going: refused, closed, told `unavailable`, or left
            self.drained = True
            if not self.accepted:
                await self.accept()
            await self.send_json({"type": "reconnect", "reason": "server restarting"})
            await self.close(code=RECONNECT_CLOSE_CODE)

    async def accept(self, subprotocol=None, headers=None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def close(self, code=None, reason=None) -> None:
        if not self.closing:
            self.closing = True
            await super().close(code, reason)

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        if not self.closing:
            await super().send(text_data, bytes_data, close)

    async def send_json(self, content, close=False) -> None:
        if not self.closing:
            await super().send_json(content, close)

    @classmethod
    async def encode_json(cls, content) -> str:
        return json_text.dumps(content)  # as the room's other messages (every edit's ack is one)

    async def websocket_disconnect(self, message):
        metrics.websocket_closed(self.area)
        self.gone = True
        drain.leave(self)
        await super().websocket_disconnect(message)

    async def refuse(self, error: ServiceError, close_code: int) -> None:
        await self.accept()
        await self.send_error(error)
        await self.close(code=close_code)

    async def discard(self, group: str) -> None:
        """Leave a group; with the layer down there is nothing to leave (memberships expire, and a restarted
        Redis holds none), and the rest of `disconnect` still runs."""
        try:
            await self.channel_layer.group_discard(group, self.channel_name)
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            outage.report(f"{self.area} leaving", exc)

    async def authenticate(self, token: str) -> None:
        """Accept the token from `hello` (join groups, greet) or raise ServiceError."""
        raise forbidden()

    def every(self, seconds: float, beat: Callable[[], Awaitable[None]]) -> None:
        """Run `beat` every `seconds` while connected; an outage in a beat closes the socket (4503).

        The first beat comes after a random 0.5-1.5 `seconds`: a room that many joined at once (a workshop)
        would otherwise beat in lockstep, every connection's database write in the same instant."""

        async def loop() -> None:
            delay = seconds * random.uniform(0.5, 1.5)
            while not self.ended:
                await asyncio.sleep(delay)
                delay = seconds
                try:
                    await self.guarded(beat())
                except Exception:  # a bug: logged; the next beat tries again
                    logger.exception("%s %s: a heartbeat failed", self.area, self.key)

        self.tasks.append(asyncio.create_task(loop()))

    def spawn(self, work: Awaitable[None]) -> None:
        """Run `work` beside the connection's messages; it ends with the connection, an outage in it closes
        the socket (4503), and another failure is logged."""

        async def run() -> None:
            try:
                await self.guarded(work)
            except Exception:
                logger.exception("%s %s: a task failed", self.area, self.key)

        self.tasks.append(asyncio.create_task(run()))

    async def guarded(self, work: Awaitable[None]) -> None:
        """Await `work`; an outage in it is told to the client and closes the socket (4503)."""
        try:
            await work
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            await self.close_unavailable(exc)

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
            await self.send_error(exc, client_seq(message) if message else refused_seq(text_data, bytes_data))
        except Exception as exc:
            if outage.is_outage(exc):
                await self.close_unavailable(exc, client_seq(message))
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
