"""Rebasing a push made on an older version over the changes it missed, as `@codemirror/collab`'s
`rebaseUpdates` does, so the authority accepts it at once instead of refusing it.

Refusing made the client fetch what it missed, rebase and push again: one more round trip per refusal, and
on a busy text a push could be refused several times in a row. Rebasing on the server keeps one linear
history and gives every client the same text, because the mapping is the library's own (`changes.py`): the
client, receiving the missed changes and then its own mapped ones (recognised as its own by clientID, in
order), maps the missed changes over its unconfirmed ones, which yields the same text (`A·B.map(A)` equals
`B·A.map(B, before=True)`).

A missed change from the same client as the first pushed one is that push arriving a second time (its
acknowledgement was lost with a connection); like the library, it is dropped, not applied twice.
"""

from __future__ import annotations

from typing import NamedTuple

from playground.collab.changes import ChangeSet


class Update(NamedTuple):
    changes: ChangeSet
    client_id: str


def rebase(updates: list[Update], over: list[Update]) -> list[Update]:
    """`updates` (made on the version `over` starts from), without those already in `over`, moved to apply
    after `over`."""
    if not over or not updates:
        return updates
    missed: ChangeSet | None = None
    skip = 0
    for update in over:
        ours = updates[skip] if skip < len(updates) else None
        if ours is not None and ours.client_id == update.client_id:
            if missed is not None:
                missed = missed.map_desc(ours.changes, True)
            skip += 1
        else:
            missed = update.changes if missed is None else missed.compose_desc(update.changes)
    updates = updates[skip:]
    if missed is None:
        return updates
    rebased = []
    for update in updates:
        mapped = update.changes.map(missed)
        missed = missed.map_desc(update.changes, True)
        rebased.append(Update(mapped, update.client_id))
    return rebased
