"""The central authority: keeps one numbered history per text and accepts every push, durably, in order.

A push is answered only after its transaction committed, so an acknowledged change survives a crash of the
server at any moment. A push made on an older version is rebased over the changes it missed (`rebase.py`)
and saved at once; its answer carries what the client missed and its own changes as saved, which the
client's `receiveUpdates` takes as one step (see `playground/collab/__init__.py`).
"""

from __future__ import annotations

from functools import partial

from django.db import IntegrityError, transaction

from playground.collab import changes as change_sets
from playground.collab.changes import ChangeSet
from playground.collab.rebase import Update, rebase
from playground.models import Document, Project, SampleRequest, TextChange
from playground.core import edge, limits
from playground.core.errors import ServiceError, not_found
from playground.core.access import authorize
from playground.core.items import item_dict
from playground.collab import text_save

TARGETS = {"document": Document, "request": SampleRequest}
MAX_UPDATES_PER_PUSH = 200
HISTORY_KEPT = 5_000  # changes kept per text; a client further behind than this reloads the text
PRUNE_EVERY = 500  # the history is pruned each time a text's version reaches a multiple of this
CLIENT_ID_MAX = 64


def _model(target):
    model = TARGETS.get(target) if isinstance(target, str) else None
    if model is None:
        raise ServiceError("invalid_message", "target must be 'document' or 'request'")
    return model


def _int(value, name: str) -> int:
    if type(value) is not int or value < 0 or value > 2**53:
        raise ServiceError("invalid_message", f"{name} must be a non-negative integer")
    return value


def _updates(updates) -> list[Update]:
    if not isinstance(updates, list) or not updates or len(updates) > MAX_UPDATES_PER_PUSH:
        raise ServiceError("invalid_message", f"updates must be a list of 1 to {MAX_UPDATES_PER_PUSH} changes")
    checked = []
    for update in updates:
        if not isinstance(update, dict):
            raise ServiceError("invalid_message", "each update must be an object {changes, clientID}")
        client_id = update.get("clientID")
        if not isinstance(client_id, str) or not 0 < len(client_id) <= CLIENT_ID_MAX:
            raise ServiceError("invalid_message", "clientID must be a short string")
        checked.append(Update(ChangeSet.from_json(update.get("changes")), client_id))
    return checked


def _missed(target: str, item_id: int, since: int, current: int) -> list[dict] | None:
    """The changes after `since`, or None when the history no longer reaches back that far."""
    if since >= current:
        return []
    rows = list(
        TextChange.objects.filter(target=target, item_id=item_id, version__gt=since)
        .order_by("version")
        .values_list("version", "changes", "client_id")
    )
    if len(rows) != current - since or (rows and rows[0][0] != since + 1):
        return None
    return [{"changes": c, "clientID": client} for _, c, client in rows]


def push(*, project_id: str, token: str | None, target: str, item_id, version, updates, squashed: bool = False) -> dict:
    """Apply `updates` made on `version` of one text, rebased over the changes made since (`rebase.py`).
    Returns, once committed, {"accepted": True, "item", "version" (the project's), "from": version,
    "collabVersion", "updates": the changes the client missed followed by its own as saved, "added": how many
    of them are new}; or, when the history no longer reaches back to `version`, {"accepted": False, "from",
    "collabVersion", "reset": True, "text"}. A `squashed` push (the page's unsent changes as one, after a
    refusal) is never rebased: one made on an older version gets {"accepted": False, "updates": what it
    missed}, and the page pushes again on top of them. Its client maps its changes over the missed ones one
    by one, and mapping a composition can break a tie otherwise; pushed again, nothing is mapped here."""
    model = _model(target)
    item_id = _int(item_id, "id")
    base = _int(version, "version")
    pushed = _updates(updates)
    if text_save.can_save(project_id, target, item_id):  # the usual push: made on the newest text
        plan = partial(_applying, base, pushed)
        saved = text_save.save(project_id=project_id, token=token, target=target, item_id=item_id, plan=plan)
        if saved is not None:
            added = [{"changes": update.changes.to_json(), "clientID": update.client_id} for update in pushed]
            item = saved["item"]
            return {
                "accepted": True,
                "item": item,
                "version": saved["version"],
                "from": base,
                "collabVersion": item["collabVersion"],
                "updates": added,
                "added": len(added),
            }
    for _attempt in range(3):
        try:
            return _push(project_id, token, target, model, item_id, base, pushed, squashed)
        except IntegrityError:  # another process saved a change on this version first: rebase over it too
            continue
    return _behind(target, model.objects.get(pk=item_id), base)


def _applying(base: int, pushed: list[Update], stored: text_save.Stored) -> tuple[str, list[tuple[list, str]]]:
    """The short save's plan for a push made on the stored text's version (as `_push` saves it: nothing missed,
    nothing to rebase); any other push, or one that makes the history due for pruning, goes the ORM's way."""
    kept = stored.collab_version + len(pushed)
    if base != stored.collab_version or (kept % PRUNE_EVERY == 0 and kept > HISTORY_KEPT):
        raise text_save.Fallback
    saved = _applied(stored.text, pushed)
    _check_saveable(saved, stored.name)
    return saved, [(update.changes.to_json(), update.client_id) for update in pushed]


def _check_saveable(text: str, name: str) -> None:
    """The text a push makes can be saved: within the size limit, and storable (no NUL: PostgreSQL cannot store
    it). A push whose text is not is refused, placed in the document where the character is; the editor keeps
    it as typed, and the push that removes it saves everything typed meanwhile (`changes.nul_passes`)."""
    limits.check_text(text, name)
    unstorable = edge.text_error(text)
    if unstorable is not None:
        raise ServiceError(
            unstorable.code,
            f"{name}: {unstorable.message}; it is not saved, nor anything typed after it, until it is removed",
            document=name,
            line=unstorable.line,
            column=unstorable.column,
        )


def text_after(text: str, updates) -> str | None:
    """The text a push of `updates` saves when the pusher missed nothing (made on the text's newest version):
    known before the save, so its evaluation can start meanwhile. None when they do not apply to `text` (the
    push itself then says why)."""
    try:
        after = _applied(text, _updates(updates))
    except (ServiceError, ValueError, TypeError, KeyError, IndexError):
        return None
    return None if edge.text_problem(after) else after  # such a push is refused


def _push(project_id, token, target, model, item_id, base, pushed: list[Update], squashed: bool) -> dict:
    with transaction.atomic():
        try:
            project = Project.objects.select_for_update().get(pk=project_id)
        except Project.DoesNotExist:
            raise not_found("project") from None
        authorize(project, token)
        try:
            item = model.objects.select_for_update().get(project_id=project_id, pk=item_id)
        except model.DoesNotExist:
            raise not_found(target) from None
        missed = _missed(target, item.pk, base, item.collab_version) if base <= item.collab_version else None
        if missed is None or (squashed and missed):
            return _behind(target, item, base)
        text = change_sets.units(change_sets.normalise(item.text))
        over = [Update(ChangeSet.from_json(m["changes"]), m["clientID"]) for m in missed]
        _check_lengths(pushed, over[0].changes.length if over else len(text))
        added = rebase(pushed, over)
        for update in added:
            text = update.changes.apply_units(text)
        saved = [{"changes": update.changes.to_json(), "clientID": update.client_id} for update in added]
        if added:
            item.text = change_sets.from_units(text)
            _check_saveable(item.text, item.name)
            project.version += 1
            project.save(update_fields=["version", "updated"])
            first = item.collab_version + 1
            TextChange.objects.bulk_create(
                TextChange(
                    project=project,
                    target=target,
                    item_id=item.pk,
                    version=first + n,
                    changes=update["changes"],
                    client_id=update["clientID"],
                )
                for n, update in enumerate(saved)
            )
            item.collab_version += len(saved)
            item.version = project.version
            item.save(update_fields=["text", "collab_version", "version", "updated"])
            _prune(target, item)
    return {
        "accepted": True,
        "item": item_dict(item, model is SampleRequest),
        "version": project.version,
        "from": base,
        "collabVersion": item.collab_version,
        "updates": missed + saved,
        "added": len(saved),
    }


def _applied(text: str, pushed: list[Update]) -> str:
    """The text after a push made on it (nothing missed); raises when a change does not fit the text."""
    units = change_sets.units(change_sets.normalise(text))
    _check_lengths(pushed, len(units))
    for update in pushed:
        units = update.changes.apply_units(units)
    return change_sets.from_units(units)


def _check_lengths(pushed: list[Update], length: int) -> None:
    """Each pushed change applies to the text the one before it produced, the first to the base version."""
    for update in pushed:
        if update.changes.length != length:
            raise change_sets.invalid(f"it applies to a text of length {update.changes.length}, not {length}")
        length = update.changes.new_length


def _behind(target: str, item, base: int) -> dict:
    answer = {"accepted": False, "from": base, "collabVersion": item.collab_version}
    missed = _missed(target, item.pk, base, item.collab_version) if base <= item.collab_version else None
    if missed is None:
        answer.update(reset=True, text=change_sets.normalise(item.text))
    else:
        answer["updates"] = missed
    return answer


def pull(*, project_id: str, target: str, item_id, since) -> dict:
    """What changed in one text after version `since`: {"from", "collabVersion", "updates"} or a reset."""
    model = _model(target)
    item_id = _int(item_id, "id")
    since = _int(since, "version")
    try:
        item = model.objects.get(project_id=project_id, pk=item_id)
    except model.DoesNotExist:
        raise not_found(target) from None
    return _behind(target, item, since)


def record_replacement(project: Project, target: str, item, old_text: str, client_id: str = "server") -> None:
    """A whole-text save (REST, a client without co-editing) enters the history as the smallest change, so
    co-editors rebase onto it instead of losing what they typed. Call inside the saving transaction, before
    `item.save()`; it sets `item.collab_version`."""
    changes = change_sets.replacement(old_text, item.text)
    if changes is None:
        return
    item.collab_version += 1
    TextChange.objects.create(
        project=project,
        target=target,
        item_id=item.pk,
        version=item.collab_version,
        changes=changes,
        client_id=client_id,
    )


def forget(target: str, item_id: int) -> None:
    TextChange.objects.filter(target=target, item_id=item_id).delete()


def _prune(target: str, item) -> None:
    if item.collab_version % PRUNE_EVERY == 0 and item.collab_version > HISTORY_KEPT:
        TextChange.objects.filter(
            target=target, item_id=item.pk, version__lte=item.collab_version - HISTORY_KEPT
        ).delete()
