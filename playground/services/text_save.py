"""The save of an edited text (a keystroke in the editor): the same rules and rows as
`document_service.update_item`, in four statements of its own instead of seven (the edit guards ask their own).

Every keystroke of every editor is one such save, so it skips the ORM's query building: the project's version
is bumped with its token read in one UPDATE ... RETURNING (a refused token rolls it back), the item is read
and locked with the project's text total in one SELECT, then the co-editing history's row and the item are
written. A change of name or expected outcome, or a project near its size limit, takes the ORM path.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from playground.collab import authority
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


class _NearLimit(Exception):
    """The project may be near its size limit: count bytes exactly on the ORM path."""


def save_text(*, project_id: str, token: str | None, target: str, item_id: int, text: str) -> dict | None:
    """Save `text` as the item's new text: {"item", "version"} as `update_item` returns, or None when the
    project is near its size limit (the caller then saves it the general way, counting bytes)."""
    statements = _sql(target)
    now = timezone.now()
    stamp = connection.ops.adapt_datetimefield_value(now)
    model = TARGETS[target]
    # the placeholders in order: the two sums' (the item's own table leaves the item out), the item's
    sums = [project_id, item_id, project_id] if model is Document else [project_id, project_id, item_id]
    reads = [(statements["bump"], [stamp, project_id]), (statements["read"], [*sums, project_id, item_id])]
    try:
        if _can_pipeline():
            return _save_pipelined(statements, reads, project_id, token, target, item_id, text, stamp)
        with transaction.atomic(), connection.cursor() as cursor:
            bumped, found = _read(cursor, cursor, reads)
            return _checked_write(cursor, statements, bumped, found, project_id, token, target, item_id, text, stamp)
    except _NearLimit:
        return None


def _read(bumping, reading, reads) -> tuple:
    """Bump the version and read the item; with two cursors in a pipeline, both go out before either answer."""
    (bump, bump_params), (read, read_params) = reads
    bumping.execute(bump, bump_params)
    if reading is bumping:
        bumped = bumping.fetchone()
        reading.execute(read, read_params)
        return bumped, reading.fetchone()
    reading.execute(read, read_params)
    return bumping.fetchone(), reading.fetchone()


def _checked_write(cursor, statements, bumped, found, project_id, token, target, item_id, text, stamp) -> dict:
    if bumped is None:
        raise not_found("project")
    version, token_hash = bumped
    authorize(Project(id=project_id, version=version, edit_token_hash=token_hash), token)
    if found is None:
        raise not_found(target)
    return _write(cursor, statements, project_id, target, item_id, text, version, stamp, found)


def _can_pipeline() -> bool:
    """PostgreSQL, in autocommit and outside any transaction: the save may then run its own."""
    return connection.vendor == "postgresql" and not connection.in_atomic_block and connection.get_autocommit()


def _save_pipelined(statements, reads, project_id, token, target, item_id, text, stamp) -> dict:
    """The save on PostgreSQL in two round trips instead of one per statement (psycopg's pipeline mode): BEGIN
    with the version bump and the item's read, then the writes with COMMIT. Django's own transaction would
    add one for each change of autocommit; each round trip is a wait and a wake-up of the thread, and with
    four statements and the transaction's two they were most of the save's cost."""
    with connection.connection.pipeline(), connection.cursor() as cursor, connection.cursor() as reading:
        cursor.execute("BEGIN")
        try:
            bumped, found = _read(cursor, reading, reads)
            saved = _checked_write(cursor, statements, bumped, found, project_id, token, target, item_id, text, stamp)
        except BaseException:
            cursor.execute("ROLLBACK")  # a refusal, or a failed statement (the next sync clears the failure)
            raise
        cursor.execute("COMMIT")
        return saved


def _write(cursor, statements, project_id, target, item_id, text, version, stamp, found) -> dict:
    model = TARGETS[target]
    if model is SampleRequest:
        name, old_text, position, collab_version, expected, others = found
        field = SampleRequest._meta.get_field("expected")
        expected = field.from_db_value(expected, None, connection)
    else:
        name, old_text, position, collab_version, others = found
        expected = None
    if text == old_text:
        cursor.execute(statements["write_version"], [version, stamp, item_id])
    else:
        if (int(others) + len(text)) * 4 > limits.project_limit():
            raise _NearLimit
        changes = authority.replacement(old_text, text)
        if changes is not None:
            collab_version += 1
            value = TextChange._meta.get_field("changes").get_db_prep_save(changes, connection)
            cursor.execute(statements["change"], [project_id, target, item_id, collab_version, value, "server"])
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
