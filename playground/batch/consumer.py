"""A batch job's progress over WebSocket: the batch page's live bar (static/src/batch-page.js).

    ws/batch/<job_id>/   then {"type": "hello", "token": <the job's edit token, or its project's>}

No token travels in the URL (proxy logs, browser history): the socket takes nothing but `hello` until the
token is checked by the rule of the REST endpoints (jobs.get_job), and closes with 4403 (4404 for an unknown
job) otherwise (playground/ws.py). Then it sends `state`, a `progress` whenever the job moved, and
`finished` once it is done, cancelled or failed, and closes (PROTOCOL.md, "Batch jobs").

Workers announce every stored chunk (progress.py); this socket reads the job's state at most every
REFRESH_SECONDS however many chunks ended meanwhile, so 200 chunks a second are a few messages to the browser.
While it watches an active job it also does what the page's status reads did: every RECOVER_SECONDS it sends
again the chunks of a lost worker (jobs.recover), so a crashed worker is healed with only a socket open, and
a missed announcement is made up for.
"""

from __future__ import annotations

import asyncio
import logging

from playground.api.messages import BATCH_MESSAGES
from playground.batch import jobs, progress
from playground.services import broadcast
from playground.batch.models import BatchJob
from playground.core import outage
from playground.core.database import db
from playground.ws import RoomConsumer

logger = logging.getLogger(__name__)

REFRESH_SECONDS = 0.2  # at most five progress messages a second
RECOVER_SECONDS = 3.0  # how often a watched active job's lost chunks are looked for


class BatchJobConsumer(RoomConsumer):
    area = "batch job"
    needs_hello = True
    hello_refusal = "send hello with the batch job's edit token first"
    handlers = {"hello": "on_hello"}
    messages = BATCH_MESSAGES

    async def connect(self) -> None:
        self.job_id = self.key = self.scope["url_route"]["kwargs"]["job_id"]
        self.group = progress.group_name(self.job_id)
        self.joined = self.finished = False
        self.shown: tuple | None = None  # (status, done, denied, reading) last sent
        self.next_refresh = 0.0
        self.pending: asyncio.Task | None = None
        self.showing = asyncio.Lock()  # one read-and-send at a time: messages never go back in time
        broadcast.serving()
        await self.accept()  # unauthenticated until `hello` brings the token

    async def authenticate(self, token: str) -> None:
        await db(jobs.get_job)(self.job_id, token)
        await self.channel_layer.group_add(self.group, self.channel_name)  # before the first read: nothing missed
        self.joined = True

    async def disconnect(self, code: int) -> None:
        self.stop_tasks()
        if self.pending is not None:
            self.pending.cancel()
        if self.joined:
            self.joined = False
            await self.discard(self.group)

    # -- client → server ---------------------------------------------------------------------------------

    async def on_hello(self, message: dict) -> None:
        """The job's state (again, on a second hello); the recovery beat starts with the first."""
        async with self.showing:
            state = await db(jobs.watched_state)(self.job_id)
            self.shown = _seen(state)
            await self.send_json({"type": "state", "job": state})
            await self.show(state)
        if not self.finished and not self.tasks:
            self.every(RECOVER_SECONDS, self.recover)

    # -- group → this connection ---------------------------------------------------------------------------

    async def batch_progress(self, event: dict) -> None:
        """A worker stored a chunk, or the job started or ended (progress.changed): look soon, not at once."""
        if self.pending is None and not self.finished:
            self.pending = asyncio.create_task(self.refresh())

    async def refresh(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, self.next_refresh - loop.time()))
        self.pending = None  # an announcement from now on is looked at in the next refresh
        self.next_refresh = loop.time() + REFRESH_SECONDS
        try:
            async with self.showing:
                await self.show(await db(jobs.watched_state)(self.job_id))
        except Exception as exc:
            if not outage.is_outage(exc):
                logger.exception("%s %s: reading its progress failed", self.area, self.job_id)
                return
            outage.report(self.area, exc)
            await self.batch_progress({})  # look again in a moment

    async def recover(self) -> None:
        """Send again the chunks of a lost worker, as a status read does, and show where the job is."""
        async with self.showing:
            if not self.finished:
                await self.show(await db(jobs.watched_state)(self.job_id, recovering=True))

    async def show(self, state: dict) -> None:
        """`progress` when the job moved since the last message, `finished` (then close) once it ended."""
        if self.finished:
            return
        if state["status"] in BatchJob.FINISHED:
            self.finished = True  # the beat stops looking; disconnect ends it
            await self.send_json({"type": "finished", "job": state})
            await self.close(code=1000)
            return
        if _seen(state) != self.shown:
            self.shown = _seen(state)
            await self.send_json({"type": "progress", "job": state})


def _seen(state: dict) -> tuple:
    """What a watcher is shown: while the cluster is read, how far (the kind and count in its source)."""
    reading = state["sources"][0].get("reading") if state["status"] == "reading" and state["sources"] else None
    return state["status"], state["done"], state["denied"], str(reading)
