"""Workshop rooms over WebSocket: the teacher's dashboard and the students' pages.

    ws/rooms/<code>/teacher/   then {"type": "hello", "token": <teacher token>} as the first message
    ws/rooms/<code>/student/   then {"type": "hello", "token": <participant token>} as the first message

No token travels in a URL (proxy logs, browser history): a socket opens unauthenticated, takes nothing but
`hello` with the token, and closes with 4403 on a wrong one (playground/ws.py, the base of every consumer).

Thin: state lives in the database (services/), so a reconnect (or a restart) resumes by token, and every
broadcast goes through channel-layer groups (services/groups.py), so several server processes share a
room through the Redis layer. Students edit their private fork here; each edit is saved, acknowledged,
evaluated through the fair per-client queue, and the progress goes to the teachers' group.
"""

from __future__ import annotations

import logging

from playground.core.errors import ServiceError
from playground.workshops.models import ROOM_OPEN, Participant
from playground.evaluation.workshop import engine
from playground.workshops.services import evaluation_pool, fair_queue, participants, progress, rooms
from playground.core.database import db
from playground.workshops.services.groups import room_group, teacher_group, watch_group
from playground.ws import RoomConsumer
from playground.workshops.api.messages import STUDENT_MESSAGES, TEACHER_MESSAGES
from playground.ws_messages import client_seq

logger = logging.getLogger(__name__)


class _RoomConsumer(RoomConsumer):
    """Shared parts of both workshop sockets: the area name and group fan-out."""

    area = "workshop room"
    needs_hello = True
    code = ""

    async def to_group(self, group: str, message: dict) -> None:
        await self.channel_layer.group_send(group, {"type": "workshop.event", "message": message})


class TeacherConsumer(_RoomConsumer):
    hello_refusal = "send hello with the teacher token first"
    handlers = {
        "hello": "on_hello",
        "watch": "on_watch",
        "unwatch": "on_unwatch",
        "announce": "on_announce",
        "present": "on_present",
        "advance": "on_advance",
        "revealHint": "on_reveal_hint",
        "revealSolution": "on_reveal_solution",
        "close": "on_close",
        "stuckMinutes": "on_stuck_minutes",
        "timeBox": "on_time_box",
    }
    messages = TEACHER_MESSAGES

    async def connect(self):
        self.token = None
        self.watching: str | None = None
        try:
            room = await db(rooms.get_room)(self.scope["url_route"]["kwargs"]["code"])
        except ServiceError as exc:
            return await self.refuse(exc, 4404)
        self.code = self.key = room.code
        await self.accept()  # unauthenticated until `hello` brings the token

    async def authenticate(self, token: str) -> None:
        room = await db(rooms.get_room)(self.code)
        if not rooms.is_teacher(room, token):
            raise ServiceError("forbidden", "the teacher token of this room is required", 403)
        self.token = token
        self.role = rooms.teacher_role(room, token)
        for group in (room_group(self.code), teacher_group(self.code)):
            await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code):
        if not self.authenticated:
            return
        for group in (room_group(self.code), teacher_group(self.code), self.watching):
            if group:
                await self.discard(group)

    async def send_dashboard(self) -> None:
        await self.send_json({"type": "dashboard", "role": self.role, **await db(progress.dashboard)(self.code)})

    async def on_hello(self, message):
        await self.send_dashboard()

    async def on_watch(self, message):
        state = await db(progress.watch_state)(code=self.code, participant_id=message["participant"])
        await self.on_unwatch(message)
        self.watching = watch_group(self.code, state["participant"]["id"])
        await self.channel_layer.group_add(self.watching, self.channel_name)
        await self.send_json({"type": "watching", **state})

    async def on_unwatch(self, message):
        if self.watching:
            await self.channel_layer.group_discard(self.watching, self.channel_name)
            self.watching = None

    async def on_announce(self, message):
        sent = await db(rooms.announce)(code=self.code, token=self.token, text=message["text"])
        await self.to_group(room_group(self.code), {"type": "announcement", **sent})

    async def on_present(self, message):
        presenting = await db(rooms.present)(
            code=self.code, token=self.token, documents=message.get("documents"), title=message.get("title")
        )
        await self.to_group(room_group(self.code), {"type": "presenting", "presenting": presenting})

    async def on_advance(self, message):
        room = await db(rooms.advance)(code=self.code, token=self.token, position=message.get("position"))
        await self.to_group(room_group(self.code), {"type": "exercise", "room": room})

    async def on_reveal_hint(self, message):
        hint = await db(rooms.reveal_hint)(code=self.code, token=self.token)
        await self.to_group(room_group(self.code), {"type": "hint", **hint})

    async def on_reveal_solution(self, message):
        solution = await db(rooms.reveal_solution)(code=self.code, token=self.token)
        await self.to_group(room_group(self.code), {"type": "solution", **solution})

    async def on_stuck_minutes(self, message):
        minutes = await db(rooms.set_stuck_minutes)(code=self.code, token=self.token, minutes=message.get("minutes"))
        await self.to_group(teacher_group(self.code), {"type": "stuckMinutes", "minutes": minutes})

    async def on_time_box(self, message):
        box = await db(rooms.set_time_box)(
            code=self.code, token=self.token, minutes=message["minutes"], locks=message.get("locks", False)
        )
        await self.to_group(room_group(self.code), {"type": "timeBox", "timeBox": box})

    async def on_close(self, message):
        room = await db(rooms.close)(code=self.code, token=self.token)
        await self.to_group(room_group(self.code), {"type": "closed", "room": room})

    async def workshop_event(self, event):
        message = event["message"]
        if message["type"] in {"exercise", "hint", "solution", "stuckMinutes", "timeBox"}:
            await self.send_dashboard()  # positions, hint counts and forks changed: resend the picture
        if message["type"] != "exercise":
            await self.send_json(message)


class StudentConsumer(_RoomConsumer):
    handlers = {
        "hello": "on_hello",
        "edit": "on_edit",
        "evaluate": "on_evaluate",
        "submit": "on_submit",
        "ping": "on_ping",
    }
    messages = STUDENT_MESSAGES

    async def connect(self):
        self.closed = False
        self.want_submit = False
        self.exercise_id = None
        self.context: engine.Context | None = None
        try:
            room = await db(rooms.get_room)(self.scope["url_route"]["kwargs"]["code"])
        except ServiceError as exc:
            return await self.refuse(exc, 4404)
        self.code = self.key = room.code
        await self.accept()  # unauthenticated until `hello` brings the participant token

    async def authenticate(self, token: str) -> None:
        participant = await db(participants.get_participant)(self.code, token)
        evaluation_pool.warm_up()  # start (and warm) the evaluation workers with the first student
        self.participant_id = participant.id
        self.client = f"participant-{participant.id}"
        await self.channel_layer.group_add(room_group(self.code), self.channel_name)
        await db(participants.connected)(self.participant_id, 1)
        await self.notify_teacher()

    async def disconnect(self, code):
        if not self.authenticated:
            return
        self.closed = True
        self.authenticated = False
        fair_queue.queue().cancel(self.client)
        await self.discard(room_group(self.code))
        await db(participants.connected)(self.participant_id, -1)
        await self.notify_teacher()

    async def notify_teacher(self) -> None:
        participant = await db(Participant.objects.get)(pk=self.participant_id)
        await self.to_group(
            teacher_group(self.code), {"type": "participant", **participants.participant_summary(participant)}
        )

    async def send_welcome(self, kind: str = "welcome") -> None:
        participant = await db(Participant.objects.get)(pk=self.participant_id)
        state = await db(participants.student_state)(participant)
        self.fork = state["fork"]
        self.exercise_id = state["exercise"]["id"]
        self.context = None  # read again for the (possibly new) exercise on the next evaluation
        self.room_open = state["room"]["state"] == ROOM_OPEN
        self.time_box = state["room"]["timeBox"]
        await self.send_json({"type": kind, **state})

    # -- client → server -------------------------------------------------------------------------------

    async def on_hello(self, message):
        await self.send_welcome()
        self.evaluate_soon()

    async def on_edit(self, message):
        if not self.room_open:
            raise ServiceError("room_closed", "this room is closed", 409)
        if rooms.time_is_up(self.time_box):
            raise rooms.time_up()  # known here without a query; the services' edit guard is the authority
        if self.context is None:
            self.context = await db(progress.context)(self.participant_id)
        saved, ctx = await db(progress.save_edit)(
            self.context,
            edit_token=self.fork["editToken"],
            target=message["target"],
            item_id=message["id"],
            text=message.get("text"),
            name=message.get("name"),
        )
        item = saved["item"]
        await self.send_json(
            {
                "type": "ack",
                "clientSeq": client_seq(message),
                "version": saved["version"],
                "id": item["id"],
                "target": message.get("target"),
            }
        )
        self.evaluate_soon(ctx)
        await self.to_group(
            watch_group(self.code, self.participant_id),
            {
                "type": "studentEdited",
                "participant": self.participant_id,
                "target": message.get("target"),
                "id": item["id"],
                "name": item["name"],
                "text": item["text"],
                "version": saved["version"],
            },
        )

    async def on_evaluate(self, message):
        self.evaluate_soon()

    async def on_ping(self, message):
        """A sign of life from an idle page (every 30 s): keeps the student "online" on the dashboard."""
        await db(participants.seen)(self.participant_id)
        await self.send_json({"type": "pong"})

    async def on_submit(self, message):
        self.evaluate_soon(submit=True)

    # -- evaluation through the fair queue ----------------------------------------------------------------

    def evaluate_soon(self, ctx: engine.Context | None = None, submit: bool = False) -> None:
        """Queue an evaluation of `ctx` (the state just saved) or, without one, of the state in the database."""
        self.want_submit = self.want_submit or submit
        fair_queue.queue().submit(self.client, lambda: self.guarded(self.run_evaluation(ctx)))

    async def run_evaluation(self, ctx: engine.Context | None) -> None:
        if self.closed:
            return
        submit, self.want_submit = self.want_submit, False
        if ctx is None or submit:  # a submit marks the progress: every later context carries it
            ctx = self.context = await db(progress.context)(self.participant_id, submit)
        try:
            result = await evaluation_pool.evaluate(ctx)
        except ServiceError as exc:  # over the wall-clock or memory bound, or the worker failed twice
            if not self.closed:
                await self.send_error(exc)
            return
        if not self.closed:  # the student first: the stored progress only matters to the teacher and to resumes
            seen = engine.preview(ctx, result["checks"], result["version"])
            await self.send_json(
                {
                    "type": "evaluation",
                    **result,
                    "checks": seen["checks"],
                    "progress": seen,
                    "exercise": ctx.exercise_id,
                }
            )
        await self.to_group(  # a teacher watching this student sees the editor's markers move with the text
            watch_group(self.code, self.participant_id),
            {
                "type": "studentEvaluated",
                "participant": self.participant_id,
                "version": result["version"],
                "documents": result["documents"],
                "errors": result["errors"],
            },
        )
        views = await db(progress.record)(ctx, result["checks"], result["version"], submit, result["diagnosis"])
        await self.to_group(
            teacher_group(self.code),
            {"type": "progress", "participant": self.participant_id, "name": ctx.participant_name, **views["teacher"]},
        )

    # -- group → this student -----------------------------------------------------------------------------

    async def workshop_event(self, event):
        message = event["message"]
        kind = message["type"]
        if kind == "exercise":
            await self.send_welcome("exercise")
            self.evaluate_soon()
        elif kind == "solution" and message["exercise"] == self.exercise_id:
            await self.send_json(message)
        elif kind == "hint" and message["exercise"] == self.exercise_id:
            await self.send_json(message)
        elif kind == "closed":
            self.room_open = False
            await self.send_json(message)
        elif kind == "timeBox":
            self.time_box = message["timeBox"]
            await self.send_json(message)
        elif kind in {"announcement", "presenting"}:
            await self.send_json(message)
