"""Documents and sample requests of a project: every change is saved as typed and gets a new project version.

Arguments are keyword-only and already validated at the edge (api/serializers.py, api/messages.py): right
types, storable text. What needs the database or the engine is checked here: sizes, expected outcomes,
whether the item exists and the token may edit it."""

from __future__ import annotations

from typing import Literal

from django.db import transaction
from django.db.models import Max, Sum
from django.db.models.functions import Length

from playground.collab import authority
from playground.models import Document, SampleRequest
from playground.core import limits
from playground.core.errors import not_found
from playground.core.expectations import clean_expected
from playground.core.access import authorize
from playground.core.items import item_dict
from playground.collab import text_save
from playground.services.project_service import bump_version, get_project

TARGETS: dict[str, type[Document] | type[SampleRequest]] = {"document": Document, "request": SampleRequest}
Target = Literal["document", "request"]


class _Unset:
    """`expected` not given (None clears it)."""


UNSET = _Unset()


def _check_project_total(project_id: str, replaced_model=None, replaced_id=None, new_text: str = "") -> None:
    """The project's size after this change stays within the limit.

    Counted in the database in characters first (a UTF-8 character is at most 4 bytes); the texts are only
    fetched to count bytes exactly when that bound could exceed the limit."""
    querysets = []
    for model in (Document, SampleRequest):
        rows = model.objects.filter(project_id=project_id)
        if model is replaced_model and replaced_id is not None:
            rows = rows.exclude(pk=replaced_id)
        querysets.append(rows)
    chars = sum(rows.aggregate(n=Sum(Length("text")))["n"] or 0 for rows in querysets)
    if (chars + len(new_text)) * 4 <= limits.project_limit():
        return
    sizes = [limits.text_size(new_text)]
    for rows in querysets:
        sizes.extend(limits.text_size(text) for text in rows.values_list("text", flat=True))
    limits.check_total(sizes)


check_project_total = _check_project_total  # also after a load from a cluster (cluster_service)


def _name(name: str | None, default: str) -> str:
    return name[:200] if name else default


def add_item(
    *,
    project_id: str,
    token: str | None,
    target: Target,
    name: str | None = None,
    text: str = "",
    expected: dict | None = None,
) -> dict:
    """Append a document or sample request; returns {"item", "version"}."""
    model = TARGETS[target]
    authorize(get_project(project_id), token)
    name = _name(name, target)
    limits.check_text(text, name)
    fields = {}
    if model is SampleRequest:
        fields["expected"] = clean_expected(expected, name)
    with transaction.atomic():
        project = bump_version(project_id)
        _check_project_total(project_id, new_text=text)
        limits.check_count(
            model.objects.filter(project_id=project_id).count() + 1, "documents" if model is Document else "requests"
        )
        last = model.objects.filter(project_id=project_id).aggregate(m=Max("position"))["m"]
        item = model.objects.create(
            project=project,
            name=name,
            text=text,
            version=project.version,
            position=0 if last is None else last + 1,
            **fields,
        )
    return {"item": item_dict(item, model is SampleRequest), "version": project.version}


def _row(model, project_id: str, target: str, item_id: int, *, lock: bool = False):
    """The item, or not found (also for an id no row can have: ids are positive 63-bit integers)."""
    rows = model.objects.select_for_update() if lock else model.objects
    try:
        if not 0 < item_id < 2**63:
            raise model.DoesNotExist
        return rows.get(project_id=project_id, pk=item_id)
    except model.DoesNotExist:
        raise not_found(target) from None


def get_item(*, project_id: str, target: Target, item_id: int) -> dict:
    model = TARGETS[target]
    get_project(project_id)
    return item_dict(_row(model, project_id, target, item_id), model is SampleRequest)


def update_item(
    *,
    project_id: str,
    token: str | None,
    target: Target,
    item_id: int,
    text: str | None = None,
    name: str | None = None,
    expected: dict | None | _Unset = UNSET,
) -> dict:
    """Save a new text/name/expected exactly as given (broken YAML included); None = unchanged. Returns
    {"item", "version"}."""
    model = TARGETS[target]
    if text is not None:
        limits.check_text(text, name)
        if name is None and isinstance(expected, _Unset) and text_save.can_save(project_id, target, item_id):
            saved = text_save.save_text(project_id=project_id, token=token, target=target, item_id=item_id, text=text)
            if saved is not None:  # else near the size limit: counted exactly below
                return saved
    with transaction.atomic():
        project = bump_version(project_id, token)
        item = _row(model, project_id, target, item_id, lock=True)
        fields = ["version", "updated"]
        if text is not None and text != item.text:
            _check_project_total(project_id, model, item.pk, text)
            old_text, item.text = item.text, text
            authority.record_replacement(project, target, item, old_text)
            fields += ["text", "collab_version"]
        if name is not None:
            item.name = _name(name, item.name)
            fields.append("name")
        if not isinstance(expected, _Unset) and model is SampleRequest:
            item.expected = clean_expected(expected, item.name)
            fields.append("expected")
        item.version = project.version
        item.save(update_fields=fields)
    return {"item": item_dict(item, model is SampleRequest), "version": project.version}


def delete_item(*, project_id: str, token: str | None, target: Target, item_id: int) -> dict:
    model = TARGETS[target]
    authorize(get_project(project_id), token)
    with transaction.atomic():
        item = _row(model, project_id, target, item_id)
        project = bump_version(project_id)
        authority.forget(target, item.pk)
        item.delete()
    return {"version": project.version}
