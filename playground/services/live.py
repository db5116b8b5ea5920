"""Live re-evaluation for the WebSocket: stream results request by request, dropping superseded work.

One ProjectRunner per project and process: edits raise `wanted` to their version; the runner evaluates the
newest saved state, and before each message it checks that no newer edit has arrived (else the work is
dropped and the newest state evaluated instead). The engine runs in the evaluation workers
(playground/evaluation), never on the event loop: one round trip per evaluation, for the requests whose
results are not cached. Work nobody waits for any more is stopped, not run to its bound: an evaluation that
a newer edit superseded, or that runs on after the project's last viewer left, has its worker job abandoned
(the pool stops a job that still runs after its grace second). Consumers in other processes (Redis layer)
also drop results older than the newest version they have seen.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playground.evaluation.pool import Abandoned
from playground.evaluation import live_jobs as jobs
from playground.evaluation import service as evaluation_service
from playground.core import limits, outage
from playground.services import presence
from playground.core.database import db
from playground.core.errors import ServiceError
from playground.services.project_service import project_state
from playground.core.rate_limit import TokenBucket

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Encoded:
    """A message already encoded as JSON text (big results are encoded once, in the worker). A result also
    carries (request id, its digest, the `unchanged` message in its place): a connection whose client keeps
    results sends that instead when it sent this client the same result last (consumers.py)."""

    kind: str
    version: int
    text: str
    unchanged: tuple[str, int, str] | None = None


Send = Callable[["dict | Encoded | Batch"], Awaitable[None]]


TYPECHECK_DELAY_SECONDS = 0.3  # type check once the documents have been still this long
# Announce "evaluating" only for an evaluation still running after this long: a quick one goes straight to
# its results (no spinner flicker), and an edit costs the room one group message instead of two.
EVALUATING_NOTICE_SECONDS = 0.15


@dataclass(frozen=True)
class Batch:
    """Several messages of one version sent as one group message (each still its own WebSocket frame)."""

    version: int
    messages: tuple


async def stream_evaluation(
    state: dict, send: Send, superseded: Callable[[], bool] = lambda: False, memo: dict | None = None
) -> bool:
    """Send documentErrors, one result per request and done (one batch) -- preceded by evaluating when the
    evaluation takes a while; then, once the documents have been still for a moment, typecheck. False if
    dropped as superseded.

    Type checking comes last: it is a diagnostic of the policies and a newer edit makes it moot. A small
    document set's checks come back with its evaluation and wait here; a big set's are asked of a worker
    only once the documents are still."""
    version = state["version"]
    timing = {"started": time.perf_counter()}  # earlier if the evaluation joins one started during the save
    texts = evaluation_service.named_texts(state["documents"])
    kubernetes_version = state.get("kubernetesVersion")
    notice = _Notice(send, version)
    try:
        loaded, results = await jobs.evaluate(
            texts,
            evaluation_service.named_requests(state["requests"]),
            kubernetes_version,
            abandoned=superseded,
            timing=timing,
        )
    except Abandoned:  # superseded while it ran on: its worker was stopped
        return False
    finally:
        await notice.settle()
    if superseded():
        return False
    messages: list[dict | Encoded] = [
        {
            "type": "documentErrors",
            "version": version,
            "documents": [
                {"id": doc["id"], "name": doc["name"], "errors": errors}
                for doc, errors in zip(state["documents"], loaded["document_errors"])
            ],
            "errors": loaded["general_errors"],
        }
    ]
    for request, (summary, result_json) in zip(state["requests"], results):
        text, digest, unchanged = jobs.result_messages(version, request, summary, result_json)
        messages.append(Encoded("result", version, text, (str(request["id"]), digest, unchanged)))
    messages.append(
        {"type": "done", "version": version, "ms": round((time.perf_counter() - timing["started"]) * 1000, 2)}
    )
    await send(Batch(version, tuple(messages)))
    if _room_has(memo, jobs.known_typecheck(texts, kubernetes_version)):
        return True  # the room was sent these type checks already (most edits: a request, a message)
    task = asyncio.create_task(_typecheck_later(version, texts, send, superseded, memo, kubernetes_version))
    _BACKGROUND.add(task)  # keep a reference until it finishes
    task.add_done_callback(_BACKGROUND.discard)
    return True


class _Notice:
    """The delayed `evaluating` message of one evaluation: sent if the evaluation outlasts
    EVALUATING_NOTICE_SECONDS, and never after that evaluation's results."""

    def __init__(self, send: Send, version: int):
        self.sending = False
        self.task = asyncio.create_task(self._later(send, version))

    async def _later(self, send: Send, version: int) -> None:
        await asyncio.sleep(EVALUATING_NOTICE_SECONDS)
        self.sending = True  # set before the first await of the send: from here on it is never cut short
        await send({"type": "evaluating", "version": version})

    async def settle(self) -> None:
        """Cancel the notice while it still waits; once sending, let it finish (it must precede results)."""
        if not self.sending:
            self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():  # our own caller was cancelled, not the notice
                raise
        except Exception as exc:  # the results' own send reports a layer outage; do not mask it here
            logger.debug("evaluating notice not sent: %s", exc)


_BACKGROUND: set[asyncio.Task] = set()


def _room_has(memo: dict | None, typecheck: dict | None) -> bool:
    """The room (memo) was last sent exactly these type checks."""
    return memo is not None and typecheck is not None and memo.get("typecheck") == typecheck


async def _typecheck_later(
    version: int,
    texts: list[str],
    send: Send,
    superseded: Callable[[], bool],
    memo: dict | None,
    kubernetes_version: str | None = None,
) -> None:
    """Type check after the documents have been still for a moment, unless a newer version came; a room
    (memo) is only sent type checks that differ from the last ones it got."""
    try:
        await asyncio.sleep(TYPECHECK_DELAY_SECONDS)
        if superseded():
            return
        typecheck = await jobs.typecheck(texts, kubernetes_version, abandoned=superseded)
        if superseded() or _room_has(memo, typecheck):
            return
        if memo is not None:
            memo["typecheck"] = typecheck
        await send({"type": "typecheck", "version": version, "typecheck": typecheck})
    except Abandoned:
        return
    except Exception as exc:  # a diagnostic; never let it take the room down
        if outage.is_outage(exc) or isinstance(exc, ServiceError):
            outage.report("type checking", exc)
        else:
            logger.exception("type checking failed")


class ProjectRunner:
    """Evaluates one project's newest version; at most one evaluation at a time per project and process."""

    def __init__(self, project_id: str, send: Send):
        self.project_id = project_id
        self.send = send
        self.wanted = 0
        self.state: dict | None = None  # the newest state an edit handed over (saves reloading it)
        self.last: dict | None = None  # the last state evaluated
        self.memo: dict = {}
        self.task: asyncio.Task | None = None
        self.deferred: asyncio.TimerHandle | None = None
        self.asked = 0  # request() calls, to tell whether someone asked while the viewers were counted
        self.unwatched = False  # the last viewer left: the running evaluation is abandoned

    def derive(self, target: str, item: dict, version: int) -> dict | None:
        """The state after this one edit, when the last known state is the version just before it."""
        base = self.state or self.last
        if base is None or base["version"] != version - 1:
            return None
        return {**_with_item(base, target, item["id"], lambda _: item), "version": version}

    def start_early(self, bucket: TokenBucket, target: str, item_id: int, text: str | None) -> None:
        """While an edit is being saved, start evaluating the texts it will save, so the evaluation after the
        save joins work under way instead of waiting for the save first. Only when the runner is idle and the
        connection within its rate (else the edit's evaluation is deferred or superseded anyway), and only a
        text within the size limit (the save refuses a bigger one; it is never evaluated)."""
        base = self.state or self.last
        if text is None or base is None or not (self.task is None or self.task.done()) or bucket.wait_seconds():
            return
        try:
            limits.check_text(text, None)
        except ServiceError:
            return
        edited = _with_item(base, target, item_id, lambda existing: {**existing, "text": text})
        if edited is base:  # not an item of the project: the save will say so
            return
        jobs.start(
            evaluation_service.named_texts(edited["documents"]),
            evaluation_service.named_requests(edited["requests"]),
            edited.get("kubernetesVersion"),
            abandoned=lambda: self.unwatched,
        )

    def request(self, version: int, state: dict | None = None) -> None:
        self.asked += 1
        self.wanted = max(self.wanted, version)
        if state is not None and (self.state is None or state["version"] > self.state["version"]):
            self.state = state
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._run())

    def request_within(self, bucket: TokenBucket, version: int, state: dict | None = None) -> None:
        """`request`, within a connection's rate (`bucket`): over it, the newest version is evaluated once a
        token is back — one deferred run, however many edits arrive meanwhile."""
        if bucket.take():
            self.request(version, state)
            return
        self.wanted = max(self.wanted, version)
        if self.deferred is None:

            def later() -> None:
                self.deferred = None
                bucket.take()
                self.request(self.wanted)

            self.deferred = asyncio.get_running_loop().call_later(bucket.wait_seconds(), later)

    async def _run(self) -> None:
        try:
            while True:
                state, self.state = self.state, None
                if state is None or state["version"] < self.wanted:
                    state = await db(project_state)(self.project_id)
                evaluated = state["version"]
                self.last = state
                await stream_evaluation(state, self.send, lambda: self.unwatched or self.wanted > evaluated, self.memo)
                if self.unwatched or self.wanted <= evaluated:
                    return
        except ServiceError as exc:  # e.g. the project was deleted meanwhile
            await self.send({"type": "error", "error": exc.as_dict()})
        except Exception as exc:
            if outage.is_outage(exc):
                outage.report("live evaluation", exc)
                return  # nobody can be told while the channel layer is down; the next edit evaluates again
            logger.exception("live evaluation of project %s failed", self.project_id)
            await self.send({"type": "error", "error": ServiceError("internal_error", "evaluation failed").as_dict()})


def _with_item(state: dict, target: str, item_id: int, change: Callable[[dict], dict]) -> dict:
    """`state` with its document or request `item_id` replaced by `change(item)`; `state` itself if it has none."""
    key = "documents" if target == "document" else "requests"
    if not any(existing["id"] == item_id for existing in state[key]):
        return state
    return {**state, key: [change(existing) if existing["id"] == item_id else existing for existing in state[key]]}


_RUNNERS: dict[str, ProjectRunner] = {}


def runner_for(project_id: str, send: Send) -> ProjectRunner:
    runner = _RUNNERS.get(project_id)
    if runner is None:
        runner = _RUNNERS[project_id] = ProjectRunner(project_id, send)
    runner.send = send
    return runner


def forget(project_id: str) -> None:
    """A viewer left: drop the runner when idle; when it is evaluating, abandon that work if nobody watches
    the project any more (its results would reach no one)."""
    runner = _RUNNERS.get(project_id)
    if runner is None:
        return
    if runner.task is None or runner.task.done():
        _RUNNERS.pop(project_id, None)
        return
    task = asyncio.get_running_loop().create_task(_abandon_if_unwatched(project_id, runner))
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _abandon_if_unwatched(project_id: str, runner: ProjectRunner) -> None:
    asked = runner.asked
    try:
        viewers = await db(presence.count)(project_id)
    except Exception as exc:  # unknown: keep evaluating, as before
        outage.report("presence", exc)
        return
    # no await between this check and the pop: a viewer who joined meanwhile has called request()
    if viewers == 0 and runner.asked == asked and _RUNNERS.get(project_id) is runner:
        runner.unwatched = True
        _RUNNERS.pop(project_id, None)
