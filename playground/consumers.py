"""The project room over WebSocket (ws/projects/<id>/?token=...): edits, live results, viewers.

Every action is a service call (playground/services); this module speaks the protocol of
playground/PROTOCOL.md and fans messages out to the project's group. A message is checked before any
handler runs (ws_messages.PROJECT_MESSAGES), and no message can end the connection: a failure that is ours
becomes an `error` message and one log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from playground.collab.consumer import CollabHandlers, clean_name
from playground.evaluation import pool
from playground.services import document_service, live, outage, presence, project_service
from playground.services.errors import ServiceError, forbidden
from playground.services.rate_limit import TokenBucket
from playground.ws_messages import PROJECT_MESSAGES, client_seq, error_message, internal_error, parse_client_message

logger = logging.getLogger(__name__)

EVALUATION_MESSAGES = {"evaluating", "documentErrors", "result", "done", "typecheck", "batch"}
WRITE_TYPES = {"edit", "create", "delete", "rename", "meta", "push"}
HANDLERS = {
    "hello": "on_hello",
    "edit": "on_edit",
    "create": "on_create",
    "delete": "on_delete",
    "rename": "on_rename",
    "meta": "on_meta",
    "evaluate": "on_evaluate",
    "push": "on_push",
    "pull": "on_pull",
    "cursor": "on_cursor",
}


def group_name(project_id: str) -> str:
    return f"project.{project_id}"


def encode(message) -> str:
    return message.text if isinstance(message, live.Encoded) else json.dumps(message)


def room_event(message, exclude: str | None = None) -> dict:
    """A group message carrying its JSON already encoded: encoded once, not copied and re-encoded per viewer."""
    if isinstance(message, live.Batch):
        return {
            "type": "room.message",
            "kind": "batch",
            "version": message.version,
            "texts": [encode(item) for item in message.messages],
            "exclude": exclude,
        }
    if isinstance(message, live.Encoded):
        return {
            "type": "room.message",
            "kind": message.kind,
            "version": message.version,
            "text": message.text,
            "exclude": exclude,
        }
    return {
        "type": "room.message",
        "kind": message.get("type"),
        "version": message.get("version"),
        "text": json.dumps(message),
        "exclude": exclude,
    }


class ProjectConsumer(CollabHandlers, AsyncJsonWebsocketConsumer):
    project_id: str = ""
    joined = False
    viewers = 1
    display_name = "Guest"

    async def connect(self):
        self.project_id = self.scope["url_route"]["kwargs"]["project_id"]
        self.group = group_name(self.project_id)
        self.connection_id = secrets.token_hex(4)
        self.latest = 0
        self.bucket = TokenBucket()
        self.deferred: asyncio.TimerHandle | None = None
        self.initial: asyncio.Task | None = None
        self.heartbeat: asyncio.Task | None = None
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        token = (query.get("token") or [None])[0]
        try:
            project = await database_sync_to_async(project_service.get_project)(self.project_id)
            self.token = token
            self.can_edit = project_service.can_edit(project, token)
            pool.warm_up()
            await self.channel_layer.group_add(self.group, self.channel_name)
            self.joined = True
        except ServiceError as exc:
            return await self.refuse(exc, 4404)
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            outage.report("project room", exc)  # Redis or the database is down: the page shows "reconnecting"
            return await self.refuse(outage.unavailable(), 4503)
        await self.accept()
        viewers = await database_sync_to_async(presence.join)(self.project_id, self.channel_name)
        self.viewers = viewers
        state = await database_sync_to_async(project_service.project_state)(self.project_id)
        await self.send_state(state, viewers)
        await self.broadcast({"type": "viewers", "count": viewers})
        version = state["version"]
        self.initial = asyncio.create_task(
            live.stream_evaluation(state, self.send_message, lambda: self.latest > version)
        )
        self.heartbeat = asyncio.create_task(self.keep_presence())

    async def refuse(self, error: ServiceError, close_code: int) -> None:
        await self.accept()
        await self.send_error(error)
        await self.close(code=close_code)

    async def keep_presence(self) -> None:
        """Renew this viewer's presence row; tell the room when the count changed (a crashed server's
        viewers expire)."""
        while True:
            await asyncio.sleep(settings.PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS)
            try:
                viewers = await database_sync_to_async(presence.heartbeat)(self.project_id, self.channel_name)
                if viewers != self.viewers:
                    await self.broadcast({"type": "viewers", "count": viewers})
            except Exception as exc:  # the next beat tries again
                outage.report("presence heartbeat", exc)

    async def disconnect(self, code):
        if not self.joined:
            return
        for task in (self.initial, self.heartbeat, self.deferred):
            if task is not None:
                task.cancel()
        try:
            await self.cursor_gone()
            await self.channel_layer.group_discard(self.group, self.channel_name)
            viewers = await database_sync_to_async(presence.leave)(self.project_id, self.channel_name)
            await self.broadcast({"type": "viewers", "count": viewers})
        except Exception as exc:  # the row expires by itself
            outage.report("project room", exc)
        live.forget(self.project_id)

    # -- client → server -------------------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Check one message and run its handler; every failure is answered, none drops the connection."""
        message: dict = {}
        try:
            message = parse_client_message(text_data, bytes_data, PROJECT_MESSAGES)
            if message["type"] in WRITE_TYPES and not self.can_edit:
                raise forbidden()
            await getattr(self, HANDLERS[message["type"]])(message)
        except ServiceError as exc:
            await self.send_error(exc, client_seq(message))
        except Exception as exc:
            if outage.is_outage(exc):
                outage.report("project room", exc)
                await self.send_error(outage.unavailable(), client_seq(message))
            else:
                logger.exception("project room %s: %s message failed", self.project_id, message.get("type"))
                await self.send_error(internal_error(), client_seq(message))

    async def on_hello(self, message: dict) -> None:
        if "name" in message:
            self.display_name = clean_name(message["name"])
        if isinstance(message.get("token"), str) and message["token"] != self.token:
            # The edit token travels in the first message, never in the URL (logs, history).
            project = await database_sync_to_async(project_service.get_project)(self.project_id)
            self.token = message["token"]
            self.can_edit = project_service.can_edit(project, self.token)
            await self.send_state(
                await database_sync_to_async(project_service.project_state)(self.project_id),
                await database_sync_to_async(presence.count)(self.project_id),
            )
            return
        state = await database_sync_to_async(project_service.project_state)(self.project_id)
        if message.get("version") != state["version"]:
            viewers = await database_sync_to_async(presence.count)(self.project_id)
            await self.send_state(state, viewers)

    async def on_edit(self, message: dict) -> None:
        fields = {"text": message.get("text"), "name": message.get("name")}
        if "expected" in message:
            fields["expected"] = message["expected"]
        saved = await database_sync_to_async(document_service.update_item)(
            self.project_id, self.token_ok(), message.get("target"), message.get("id"), **fields
        )
        version = saved["version"]
        await self.ack(message, version, saved["item"]["id"])
        item = saved["item"]
        if self.viewers > 1:  # nobody else to tell otherwise
            await self.broadcast(
                {
                    "type": "edited",
                    "target": message.get("target"),
                    "id": item["id"],
                    "text": item["text"],
                    "name": item["name"],
                    "expected": item.get("expected"),
                    "collabVersion": item["collabVersion"],
                    "version": version,
                    "by": self.connection_id,
                },
                exclude_self=True,
            )
        runner = live.runner_for(self.project_id, self.group_send_message)
        self.schedule_evaluation(version, runner.derive(message.get("target"), item, version))

    async def on_create(self, message: dict) -> None:
        saved = await database_sync_to_async(document_service.add_item)(
            self.project_id,
            self.token_ok(),
            message.get("target"),
            message.get("name"),
            message.get("text", ""),
            message.get("expected"),
        )
        await self.ack(message, saved["version"], saved["item"]["id"])
        await self.broadcast_state(saved["version"])

    async def on_delete(self, message: dict) -> None:
        saved = await database_sync_to_async(document_service.delete_item)(
            self.project_id, self.token_ok(), message.get("target"), message.get("id")
        )
        await self.ack(message, saved["version"], message.get("id"))
        await self.broadcast_state(saved["version"])

    async def on_rename(self, message: dict) -> None:
        if not message["name"]:
            raise ServiceError("invalid_message", "rename needs a non-empty name")
        saved = await database_sync_to_async(document_service.update_item)(
            self.project_id, self.token_ok(), message.get("target"), message.get("id"), name=message["name"]
        )
        await self.ack(message, saved["version"], saved["item"]["id"])
        await self.broadcast_state(saved["version"], evaluate=False)

    async def on_meta(self, message: dict) -> None:
        state = await database_sync_to_async(project_service.update_metadata)(
            self.project_id,
            self.token_ok(),
            message.get("title"),
            message.get("description"),
            message.get("kubernetesVersion"),
        )
        await self.ack(message, state["version"], None)
        await self.broadcast_state(state["version"], evaluate="kubernetesVersion" in message)

    async def on_evaluate(self, message: dict) -> None:
        if not self.bucket.take():
            raise ServiceError("rate_limited", "too many evaluations; try again shortly", 429)
        version = await database_sync_to_async(project_service.current_version)(self.project_id)
        self.latest = max(self.latest, version)
        live.runner_for(self.project_id, self.group_send_message).request(version)

    # -- helpers -----------------------------------------------------------------------------------------

    def token_ok(self):
        """The connection's token; services check it again on every write (the token may be revoked)."""
        return self.token

    def schedule_evaluation(self, version: int, state: dict | None = None) -> None:
        runner = live.runner_for(self.project_id, self.group_send_message)
        if self.bucket.take():
            runner.request(version, state)
        elif self.deferred is None:  # over the rate: evaluate the newest version once a token is back

            def later():
                self.deferred = None
                self.bucket.take()
                runner.request(runner.wanted)

            runner.wanted = max(runner.wanted, version)
            self.deferred = asyncio.get_running_loop().call_later(self.bucket.wait_seconds(), later)

    async def ack(self, message: dict, version: int, item_id) -> None:
        self.latest = max(self.latest, version)
        await self.send_json(
            {
                "type": "ack",
                "clientSeq": client_seq(message),
                "version": version,
                "id": item_id,
                "target": message.get("target"),
            }
        )

    async def send_message(self, message) -> None:
        """Send a message, an already-encoded one, or a batch (as one frame per message)."""
        if isinstance(message, live.Batch):
            for item in message.messages:
                await self.send(text_data=encode(item))
        else:
            await self.send(text_data=encode(message))

    async def send_state(self, state: dict, viewers: int) -> None:
        self.latest = max(self.latest, state["version"])
        await self.send_json(
            {
                "type": "state",
                "project": state,
                "version": state["version"],
                "viewers": viewers,
                "canEdit": self.can_edit,
                "connection": self.connection_id,
            }
        )

    async def broadcast_state(self, version: int, evaluate: bool = True) -> None:
        state = await database_sync_to_async(project_service.project_state)(self.project_id)
        await self.broadcast({"type": "state", "project": state, "version": state["version"]})
        if evaluate:
            self.schedule_evaluation(version)

    async def send_error(self, error: ServiceError, client_seq=None) -> None:
        await self.send_json(error_message(error, client_seq))

    async def broadcast(self, message: dict, exclude_self: bool = False) -> None:
        await self.channel_layer.group_send(
            self.group, room_event(message, self.channel_name if exclude_self else None)
        )

    async def group_send_message(self, message) -> None:
        await self.channel_layer.group_send(self.group, room_event(message))

    # -- group → this connection -------------------------------------------------------------------------

    async def room_message(self, event: dict) -> None:
        if event.get("exclude") == self.channel_name:
            return
        kind, version = event.get("kind"), event.get("version")
        if kind == "viewers":
            self.viewers = json.loads(event["text"])["count"]
        if kind in EVALUATION_MESSAGES and isinstance(version, int) and version < self.latest:
            return  # superseded: a newer version exists
        if isinstance(version, int) and kind in {"edited", "state", "updates"}:
            self.latest = max(self.latest, version)
        if kind == "state":  # per-connection fields are added here
            message = {
                **json.loads(event["text"]),
                "viewers": await database_sync_to_async(presence.count)(self.project_id),
                "canEdit": self.can_edit,
                "connection": self.connection_id,
            }
            await self.send_json(message)
            return
        if kind == "batch":
            for text in event["texts"]:
                await self.send(text_data=text)
            return
        await self.send(text_data=event["text"])
