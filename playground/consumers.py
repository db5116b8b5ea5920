"""The project room over WebSocket (ws/projects/<id>/, the edit token in `hello`): edits, co-editing,
live results, viewers.

Every action is a service call (playground/services); this module speaks the protocol of
playground/PROTOCOL.md and fans messages out to the project's group (services/notify.py names it and shapes
its events). Checking, dispatch, errors, the heartbeat and the rate limit are the base's (playground/ws.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from urllib.parse import parse_qs

from django.conf import settings

from playground.collab import authority
from playground.collab.consumer import CollabHandlers, clean_name
from playground.evaluation import pool
from playground.services import document_service, live, presence, project_service
from playground.core import access, outage
from playground.core.database import db
from playground.core.errors import ServiceError
from playground.services.notify import bundle, encode, group_name, room_event, unchanged_forms
from playground.ws import RoomConsumer
from playground.api.messages import PROJECT_MESSAGES
from playground.ws_messages import client_seq

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


CATCH_UP_SECONDS = 1.0  # after joining a room with others in it (see ProjectConsumer.catch_up)


class ProjectConsumer(CollabHandlers, RoomConsumer):
    area = "project room"
    handlers = HANDLERS
    messages = PROJECT_MESSAGES
    write_types = WRITE_TYPES
    project_id: str = ""
    joined = False
    left = False
    viewers = 1
    display_name = "Guest"
    bundles = False  # the client asked (hello) for each evaluation's messages in one `bundle` frame
    # The client keeps each request's last result (hello `unchanged`): a result this connection sent it last
    # goes as `unchanged`. `shown` is what it sent: request id -> the result's digest.
    keeps_results = False

    async def connect(self):
        self.project_id = self.key = self.scope["url_route"]["kwargs"]["project_id"]
        self.group = group_name(self.project_id)
        self.connection_id = secrets.token_hex(4)
        self.shown: dict[str, int] = {}
        self.latest = 0
        self.initial: asyncio.Task | None = None
        # Older clients and scripts may still put the token in the URL; the page sends it in `hello`.
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        token = (query.get("token") or [None])[0]
        try:
            project = await db(project_service.get_project)(self.project_id)
        except ServiceError as exc:
            return await self.refuse(exc, 4404)
        self.token = token
        self.can_edit = access.can_edit(project, token)
        pool.warm_up()
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        await self.accept()
        viewers = await db(presence.join)(self.project_id, self.channel_name)
        self.viewers = viewers
        state = await db(project_service.project_state)(self.project_id)
        await self.send_state(state, viewers)
        await self.broadcast({"type": "viewers", "count": viewers})
        version = state["version"]
        self.initial = asyncio.create_task(
            live.stream_evaluation(state, self.send_message, lambda: self.latest > version)
        )
        if viewers > 1:
            self.spawn(self.catch_up())
        self.every(settings.PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS, self.renew_presence)

    async def catch_up(self) -> None:
        """A room of one sends to its viewer directly (`to_room`) until that viewer hears of a second one
        (this connection's `viewers` broadcast); what it sent meanwhile did not reach this connection. One
        look a moment after joining brings it up to date: the newer state and its results."""
        await asyncio.sleep(CATCH_UP_SECONDS)
        state = await db(project_service.project_state)(self.project_id)
        if state["version"] > self.latest:
            await self.send_state(state, await db(presence.count)(self.project_id))
            version = state["version"]
            await live.stream_evaluation(state, self.send_message, lambda: self.latest > version)

    async def renew_presence(self) -> None:
        """Renew this viewer's presence row; tell the room when the count changed (a crashed server's
        viewers expire)."""
        viewers = await db(presence.heartbeat)(self.project_id, self.channel_name)
        if viewers != self.viewers:
            await self.broadcast({"type": "viewers", "count": viewers})

    async def disconnect(self, code):
        self.left = True
        if not self.joined:
            return
        self.stop_tasks()
        if self.initial is not None:
            self.initial.cancel()
        try:
            await self.cursor_gone()
            await self.discard(self.group)
            viewers = await db(presence.leave)(self.project_id, self.channel_name)
            await self.broadcast({"type": "viewers", "count": viewers})
        except Exception as exc:  # the row expires by itself
            outage.report("project room", exc)
        live.forget(self.project_id)

    # -- client → server (checked and dispatched by RoomConsumer.receive) -------------------------------

    async def on_hello(self, message: dict) -> None:
        if "bundle" in message:
            self.bundles = message["bundle"]
        if "unchanged" in message:
            self.keeps_results = message["unchanged"]
            self.shown.clear()
        if "name" in message:
            self.display_name = clean_name(message["name"])
        if isinstance(message.get("token"), str) and message["token"] != self.token:
            # The edit token travels in the first message, never in the URL (logs, history).
            project = await db(project_service.get_project)(self.project_id)
            self.token = message["token"]
            self.can_edit = access.can_edit(project, self.token)
            await self.send_state(
                await db(project_service.project_state)(self.project_id),
                await db(presence.count)(self.project_id),
            )
            return
        state = await db(project_service.project_state)(self.project_id)
        if message.get("version") != state["version"]:
            viewers = await db(presence.count)(self.project_id)
            await self.send_state(state, viewers)

    async def on_edit(self, message: dict) -> None:
        fields = {"text": message.get("text"), "name": message.get("name")}
        if "expected" in message:
            fields["expected"] = message["expected"]
        runner = live.runner_for(self.project_id, self.group_send_message)
        runner.start_early(self.bucket, message["target"], message["id"], fields["text"])
        saved = await db(document_service.update_item)(
            project_id=self.project_id, token=self.token, target=message["target"], item_id=message["id"], **fields
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
        self.schedule_evaluation(version, runner.derive(message.get("target"), item, version))

    async def on_create(self, message: dict) -> None:
        saved = await db(document_service.add_item)(
            project_id=self.project_id,
            token=self.token,
            target=message["target"],
            name=message.get("name"),
            text=message.get("text") or "",
            expected=message.get("expected"),
        )
        await self.ack(message, saved["version"], saved["item"]["id"])
        await self.broadcast_state(saved["version"])

    async def on_delete(self, message: dict) -> None:
        saved = await db(document_service.delete_item)(
            project_id=self.project_id, token=self.token, target=message["target"], item_id=message["id"]
        )
        await self.ack(message, saved["version"], message["id"])
        await self.broadcast_state(saved["version"])

    async def on_rename(self, message: dict) -> None:
        saved = await db(document_service.update_item)(
            project_id=self.project_id,
            token=self.token,
            target=message["target"],
            item_id=message["id"],
            name=message["name"],
        )
        await self.ack(message, saved["version"], saved["item"]["id"])
        await self.broadcast_state(saved["version"], evaluate=False)

    async def on_meta(self, message: dict) -> None:
        state = await db(project_service.update_metadata)(
            project_id=self.project_id,
            token=self.token,
            title=message.get("title"),
            description=message.get("description"),
            kubernetes_version=message.get("kubernetesVersion"),
        )
        await self.ack(message, state["version"], None)
        await self.broadcast_state(state["version"], evaluate="kubernetesVersion" in message)

    async def on_evaluate(self, message: dict) -> None:
        self.limit("evaluations")
        if message.get("full"):  # the client lacks a result it was told is unchanged: every result in full
            self.shown.clear()
        version = await db(project_service.current_version)(self.project_id)
        self.latest = max(self.latest, version)
        live.runner_for(self.project_id, self.group_send_message).request(version)

    # -- helpers -----------------------------------------------------------------------------------------

    def runner(self) -> live.ProjectRunner:
        return live.runner_for(self.project_id, self.group_send_message)

    def evaluate_early(self, target, item_id, version, updates) -> None:
        """While a push is being saved, start evaluating the text it will save, when that is known: the push
        was made on the newest text this room evaluated (nothing to rebase over)."""
        runner = self.runner()
        base = runner.state or runner.last
        key = "documents" if target == "document" else "requests"
        item = next((i for i in (base or {}).get(key, []) if i["id"] == item_id), None)
        if item is None or item.get("collabVersion") != version:
            return
        text = authority.text_after(item["text"], updates)
        if text is not None:
            runner.start_early(self.bucket, target, item_id, text)

    def evaluate_saved(self, target: str, item: dict, version: int) -> None:
        """Evaluate the version a push saved, from the saved item (no need to read the project again)."""
        self.schedule_evaluation(version, self.runner().derive(target, item, version))

    def schedule_evaluation(self, version: int, state: dict | None = None) -> None:
        self.runner().request_within(self.bucket, version, state)

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
        """Send a message, an already-encoded one, or a batch (one frame per message, or one `bundle`)."""
        if isinstance(message, live.Batch):
            await self.send_texts([encode(item) for item in message.messages], unchanged_forms(message))
        else:
            await self.send(text_data=encode(message))

    async def send_texts(self, texts: list[str], unchanged: list | None = None) -> None:
        """Encoded messages of one version: one `bundle` frame when the client asked for them, else a frame each.
        A client that keeps results gets `unchanged` (its form from `unchanged`) for a result it has."""
        if self.keeps_results and unchanged:
            texts = [self.as_shown(text, form) for text, form in zip(texts, unchanged)]
        if self.bundles and len(texts) > 1:
            await self.send(text_data=bundle(texts))
            return
        for text in texts:
            await self.send(text_data=text)

    def as_shown(self, text: str, form: list | None) -> str:
        """`text`, or its `unchanged` form when this client was last sent the same result for that request."""
        if form is None:
            return text
        request_id, digest, unchanged = form
        if self.shown.get(request_id) == digest:
            return unchanged
        self.shown[request_id] = digest
        return text

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
        state = await db(project_service.project_state)(self.project_id)
        await self.broadcast({"type": "state", "project": state, "version": state["version"]})
        if evaluate:
            self.schedule_evaluation(version)

    async def broadcast(self, message: dict, exclude_self: bool = False) -> None:
        if exclude_self and self.alone():
            return  # no one else to tell (a co-editing change of a room of one: most edits)
        await self.to_room(room_event(message, self.channel_name if exclude_self else None))

    async def group_send_message(self, message) -> None:
        await self.to_room(room_event(message))

    async def to_room(self, event: dict) -> None:
        """Everything this connection tells its room. A room whose one viewer is this connection gets it
        directly, not through the channel layer (with Redis, eight round trips a message): most rooms are
        one person's, and a workshop is a hundred of them. All of it takes the same path, so a room of one
        sees its state before the results that follow it. A second viewer's join makes the count two (its
        `viewers` broadcast) and messages go through the group again; until then it has its own first
        evaluation of the state it joined at."""
        if self.alone():
            await self.room_message(event)
            return
        await self.channel_layer.group_send(self.group, event)

    def alone(self) -> bool:
        """This connection is the room's one viewer (as the room's last `viewers` count said)."""
        return self.viewers == 1 and self.joined and not self.left

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
                "viewers": await db(presence.count)(self.project_id),
                "canEdit": self.can_edit,
                "connection": self.connection_id,
            }
            await self.send_json(message)
            return
        if kind == "batch":
            await self.send_texts(event["texts"], event.get("unchanged"))
            return
        await self.send(text_data=event["text"])
