"""The save of an edited text (a keystroke in the editor): the same rules and rows as the ORM's, in a few
statements of its own instead of the ORM's many (the edit guards ask their own).

Every keystroke of every editor is one such save, so it skips the ORM's query building: the project's version
is bumped with its token read in one UPDATE ... RETURNING (a refused token rolls it back), the item is read
and locked with the project's text total in one SELECT, then the co-editing history's rows and the item are
written. What is written is a plan's: a whole text (`save_text`, for `document_service.update_item`) or a
co-editing push (`collab/authority.py`). A plan may send the save the general way (`Fallback`): a change of
name or expected outcome, a project near its size limit, a push that missed changes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from playground.collab import changes as change_sets
from playground.core import edge, limits
from playground.core.access import authorize
from playground.core.errors import not_found
from playground.models import Document, Project, SampleRequest, TextChange

TARGETS = {"document": Document, "request": SampleRequest}


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _sql(target: str) -> dict[str, str]:
    """The statements for one target's table (built once per connection vendor and target)."""
    key = (connection.vendor, target)
    found = _STATEMENTS.get(key)
    if found is not None:
        return found
    model = TARGETS[target]
    item = _table(model)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    expected = ", expected" if model is SampleRequest else ""
    # The other items' characters (a character is at most 4 bytes: the bound the ORM path checks first).
    others = " + ".join(
        f"(SELECT COALESCE(SUM(LENGTH(text)), 0) FROM {_table(other)} WHERE project_id = %s"
        + (" AND id <> %s)" if other is model else ")")
        for other in (Document, SampleRequest)
    )
    found = _STATEMENTS[key] = {
        "bump": f"UPDATE {_table(Project)} SET version = version + 1, updated = %s WHERE id = %s "
        "RETURNING version, edit_token_hash",
        "read": f"SELECT name, text, position, collab_version{expected}, {others} FROM {item} "
        f"WHERE project_id = %s AND id = %s{lock}",
        "write_text": f"UPDATE {item} SET text = %s, collab_version = %s, version = %s, updated = %s WHERE id = %s",
        "write_version": f"UPDATE {item} SET version = %s, updated = %s WHERE id = %s",
        "change": f"INSERT INTO {_table(TextChange)} (project_id, target, item_id, version, changes, client_id) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
    }
    return found


_STATEMENTS: dict[tuple[str, str], dict[str, str]] = {}


def can_save(project_id, target: str, item_id) -> bool:
    """Whether this save can take the short path (the database supports RETURNING; the ids are plain)."""
    return (
        isinstance(project_id, str)
        and edge.text_problem(project_id) is None  # one PostgreSQL cannot store names no project
        and target in TARGETS
        and isinstance(item_id, int)
        and 0 < item_id < 2**63
        and connection.features.can_return_columns_from_insert  # RETURNING
        and connection.vendor in {"sqlite", "postgresql"}
    )


class Fallback(Exception):
    """Raised by a plan: this save takes the general (ORM) path instead (a project near its size limit, a push
    that missed changes, a history due for pruning)."""


class Stored(NamedTuple):
    """What a plan is told of the item as it is stored (read and locked in the save's transaction)."""

    name: str
    text: str
    collab_version: int
    others: int  # the other items' characters


# (old item) -> (the text to save, the co-editing history rows it adds: [(change set JSON, client id)])
Plan = Callable[[Stored], tuple[str, list[tuple[list, str]]]]


def save_text(*, project_id: str, token: str | None, target: str, item_id: int, text: str) -> dict | None:
    """Save `text` as the item's new text: {"item", "version"} as `update_item` returns, or None when the
    project is near its size limit (the caller then saves it the general way, counting bytes)."""
    return save(project_id=project_id, token=token, target=target, item_id=item_id, plan=partial(_replacing, text))


def _replacing(text: str, stored: Stored) -> tuple[str, list[tuple[list, str]]]:
    """A whole-text save: the text as given, entering the history as the smallest change (`record_replacement`)."""
    if text == stored.text:
        return text, []
    if (stored.others + len(text)) * 4 > limits.project_limit():
        raise Fallback
    changes = change_sets.replacement(stored.text, text)
    return text, ([] if changes is None else [(changes, "server")])


def save(*, project_id: str, token: str | None, target: str, item_id: int, plan: Plan) -> dict | None:
    """Bump the project's version (checking the token), read and lock the item, and write what `plan` makes
    of it: {"item", "version"}, or None when the plan raised Fallback (nothing was saved)."""
    statements = _sql(target)
    now = timezone.now()
    stamp = connection.ops.adapt_datetimefield_value(now)
    model = TARGETS[target]
    # the placeholders in order: the two sums' (the item's own table leaves the item out), the item's
    sums = [project_id, item_id, project_id] if model is Document else [project_id, project_id, item_id]
    reads = [(statements["bump"], [stamp, project_id]), (statements["read"], [*sums, project_id, item_id])]
    write = partial(_checked_write, statements, project_id, token, target, item_id, plan, stamp)
    try:
        if _can_batch():
            return _save_batched(reads, write)
        with transaction.atomic(), connection.cursor() as cursor:
            return write(cursor, *_read(cursor, reads))
    except Fallback:
        return None


def _read(cursor, reads) -> tuple:
    """Bump the version, then read the item."""
    (bump, bump_params), (read, read_params) = reads
    cursor.execute(bump, bump_params)
    bumped = cursor.fetchone()
    cursor.execute(read, read_params)
    return bumped, cursor.fetchone()


def _can_batch() -> bool:
    """PostgreSQL, in autocommit and outside any transaction: the save may then run its own."""
    return connection.vendor == "postgresql" and not connection.in_atomic_block and connection.get_autocommit()


class _Batch:
    """Statements kept to be sent together (a cursor's `execute`, without answers)."""

    def __init__(self):
        self.statements: list[str] = []
        self.params: list = []

    def execute(self, statement: str, params: list) -> None:
        self.statements.append(statement)
        self.params += params


def _save_batched(reads, write) -> dict:
    """The save on PostgreSQL in two round trips of one query each instead of one per statement: BEGIN with
    the version bump and the item's read, then the writes with COMMIT, each sent as one text (the cursor
    binds the values on the client: the statements travel in the simple protocol, which takes several at
    once). Each round trip is a wait and a wake-up of the thread, and each statement psycopg's own work:
    with four statements and the transaction's two they were most of the save's cost."""
    (bump, bump_params), (read, read_params) = reads
    with connection.cursor() as cursor:
        try:
            cursor.execute(f"BEGIN; {bump}; {read}", [*bump_params, *read_params])
            cursor.nextset()
            bumped = cursor.fetchone()
            cursor.nextset()
            found = cursor.fetchone()
            batch = _Batch()
            saved = write(batch, bumped, found)
        except BaseException:
            cursor.execute("ROLLBACK")  # a refusal, a fallback, a failed statement: nothing of it is kept
            raise
        cursor.execute("; ".join([*batch.statements, "COMMIT"]), batch.params)
        return saved


def _checked_write(statements, project_id, token, target, item_id, plan: Plan, stamp, cursor, bumped, found) -> dict:
    if bumped is None:
        raise not_found("project")
    version, token_hash = bumped
    authorize(Project(id=project_id, version=version, edit_token_hash=token_hash), token)
    if found is None:
        raise not_found(target)
    model = TARGETS[target]
    if model is SampleRequest:
        name, old_text, position, collab_version, expected, others = found
        expected = SampleRequest._meta.get_field("expected").from_db_value(expected, None, connection)
    else:
        name, old_text, position, collab_version, others = found
        expected = None
    text, rows = plan(Stored(name, old_text, collab_version, int(others)))
    if text == old_text and not rows:
        cursor.execute(statements["write_version"], [version, stamp, item_id])
    else:
        prepare = TextChange._meta.get_field("changes").get_db_prep_save
        for changes, client_id in rows:
            collab_version += 1
            value = prepare(changes, connection)
            cursor.execute(statements["change"], [project_id, target, item_id, collab_version, value, client_id])
        cursor.execute(statements["write_text"], [text, collab_version, version, stamp, item_id])
    item = {
        "id": item_id,
        "name": name,
        "text": text,
        "version": version,
        "position": position,
        "collabVersion": collab_version,
    }
    if model is SampleRequest:
        item["expected"] = expected
    return {"item": item, "version": version}
