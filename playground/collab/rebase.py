"""Rebasing a push made on an older version over the changes it missed, with `@codemirror/collab`'s
`rebaseUpdates`, so the authority accepts it at once instead of refusing it.

Refusing made the client fetch what it missed, rebase and push again: one more round trip per refusal, and
on a busy text a push could be refused several times in a row.

One missed change at a time, on both sides. Mapping over two changes one after the other is not always the
same as mapping over their composition (an insertion inside a range a later change replaces lands on a
different side), so the server and the client must agree on the steps. Clients take every change they
receive on its own (`receiveUpdates` with one update, static/src/collab.js), and the server rebases a push
over each missed change on its own (`rebaseUpdates` with one update). Then the client's unsent changes and
the server's rebased ones went through the same mappings, whichever changes reached the client before the
answer to its push, and both end with the same text (`A·B.map(A)` equals `B·A.map(B, before=True)`).

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
    """`updates` (made on the version `over` starts from), without those already in `over`, moved over each
    change of `over` in turn, to apply after all of them."""
    for update in over:
        updates = rebase_updates(updates, [update])
    return updates


def rebase_updates(updates: list[Update], over: list[Update]) -> list[Update]:
    """`rebaseUpdates` of @codemirror/collab: moves `updates` over `over` taken as one composed change."""
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
