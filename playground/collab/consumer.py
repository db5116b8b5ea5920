"""The co-editing messages of the project room: push, pull and cursor (see playground/PROTOCOL.md).

A mixin of the project consumer, so the protocol of co-editing lives beside its authority; the consumer
supplies what the class body declares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground.collab import authority
from playground.core.database import db
from playground.core.errors import ServiceError

NAME_MAX = 40


def clean_name(value) -> str:
    """A display name shown beside the cursor: a short single-line string, or a neutral default."""
    if not isinstance(value, str):
        return "Guest"
    name = " ".join(value.split())[:NAME_MAX]
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "Guest"
    return name.replace("\x00", "") or "Guest"


class CollabHandlers:
    # Supplied by the consumer this is mixed into (playground/consumers.py).
    project_id: str
    token: str | None
    connection_id: str
    display_name: str
    latest: int

    if TYPE_CHECKING:

        async def send_json(self, content, close: bool = False) -> None: ...
        async def broadcast(self, message: dict, exclude_self: bool = False) -> None: ...
        def evaluate_early(self, target, item_id, version, updates) -> None: ...
        def evaluate_saved(self, target: str, item: dict, version: int) -> None: ...

    async def on_push(self, message: dict) -> None:
        target, item_id = message.get("target"), message.get("id")
        self.evaluate_early(target, item_id, message.get("version"), message.get("updates"))
        answer = await db(authority.push)(
            project_id=self.project_id,
            token=self.token,
            target=target,
            item_id=item_id,
            version=message.get("version"),
            updates=message.get("updates"),
            squashed=bool(message.get("squashed")),
        )
        if not answer["accepted"]:  # the history no longer reaches back to the client's version: the text
            await self.send_json(
                {
                    "type": "updates",
                    "target": target,
                    "id": item_id,
                    "rejected": True,
                    "clientSeq": message.get("clientSeq"),
                    **_history(answer),
                }
            )
            return
        version, added = answer["version"], answer["added"]
        self.latest = max(self.latest, version)
        # Everyone else gets the new changes (committed: push returns after its transaction); the sender gets
        # what it missed and its own as saved in its ack, sent before any later change reaches this
        # connection, so it lands exactly on top of what the sender has.
        if added:
            await self.broadcast(
                {
                    "type": "updates",
                    "target": target,
                    "id": item_id,
                    "version": version,
                    "by": self.connection_id,
                    "from": answer["collabVersion"] - added,
                    "collabVersion": answer["collabVersion"],
                    "updates": answer["updates"][-added:],
                },
                exclude_self=True,
            )
        await self.send_json(
            {
                "type": "ack",
                "clientSeq": message.get("clientSeq"),
                "version": version,
                "id": item_id,
                "target": target,
                **_history(answer),
            }
        )
        if added:
            # At once, no wait for more typing: the page sends its next push only once this one's results are
            # shown (static/src/feedback.js), and while the project's runner is busy a newer version only raises
            # what it evaluates next (services/live.py), so a burst costs at most one evaluation more.
            self.evaluate_saved(target, answer["item"], version)

    async def on_pull(self, message: dict) -> None:
        target, item_id = message.get("target"), message.get("id")
        answer = await db(authority.pull)(
            project_id=self.project_id, target=target, item_id=item_id, since=message.get("version")
        )
        await self.send_json({"type": "updates", "target": target, "id": item_id, **_history(answer)})

    async def on_cursor(self, message: dict) -> None:
        target, item_id = message.get("target"), message.get("id")
        if target not in authority.TARGETS or type(item_id) is not int:
            raise ServiceError("invalid_message", "cursor needs a target and an id")
        ranges = message.get("ranges")
        if (
            not isinstance(ranges, list)
            or not 0 < len(ranges) <= 20
            or not all(isinstance(r, dict) and _position(r.get("anchor")) and _position(r.get("head")) for r in ranges)
        ):
            raise ServiceError("invalid_message", "cursor ranges must be a list of {anchor, head} positions")
        version = message.get("version")
        if type(version) is not int or version < 0:
            raise ServiceError("invalid_message", "cursor needs the text's version")
        await self.broadcast(
            {
                "type": "cursor",
                "connection": self.connection_id,
                "name": self.display_name,
                "target": target,
                "id": item_id,
                "version": version,
                "ranges": [{"anchor": r["anchor"], "head": r["head"]} for r in ranges],
            },
            exclude_self=True,
        )

    async def cursor_gone(self) -> None:
        """The connection leaves: its cursor goes."""
        await self.broadcast({"type": "cursor", "connection": self.connection_id, "gone": True}, exclude_self=True)


def _position(value) -> bool:
    return type(value) is int and 0 <= value <= 2**31


def _history(answer: dict) -> dict:
    body = {"from": answer["from"], "collabVersion": answer["collabVersion"]}
    if answer.get("reset"):
        body.update(reset=True, text=answer["text"])
    else:
        body["updates"] = answer["updates"]
    return body
