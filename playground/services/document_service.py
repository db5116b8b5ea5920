"""Documents and sample requests of a project: every change is saved as typed and gets a new project version."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max, Sum
from django.db.models.functions import Length

from playground.collab import authority
from playground.models import Document, SampleRequest
from playground.services import edge, limits
from playground.services.errors import ServiceError, not_found
from playground.services.expectations import clean_expected
from playground.services.project_service import authorize, bump_version, get_project, item_dict, project_state

TARGETS = {"document": Document, "request": SampleRequest}
UNSET = object()


def _model(target: str):
    try:
        return TARGETS[target]
    except (KeyError, TypeError):  # TypeError: an unhashable target (a list or an object)
        raise ServiceError("invalid_request", "target must be 'document' or 'request'")


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


def _clean_name(name, default: str) -> str:
    if name is None or name == "":
        return default
    return edge.check_text(name, "name")[:200]


def add_item(project_id: str, token: str | None, target: str, name=None, text: str = "", expected=None) -> dict:
    """Append a document or sample request; returns {"item", "version"}."""
    model = _model(target)
    authorize(get_project(project_id), token)
    edge.check_text(text, "text")
    name = _clean_name(name, target)
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


def _item_id(item_id) -> int:
    """An item id as a client sent it (URL digits or a JSON number); one no row can have is not found."""
    if isinstance(item_id, bool) or not isinstance(item_id, (int, str)):
        raise ValueError(item_id)
    value = int(item_id)
    if not 0 < value < 2**63:
        raise ValueError(item_id)
    return value


def get_item(project_id: str, target: str, item_id) -> dict:
    model = _model(target)
    get_project(project_id)
    try:
        item = model.objects.get(project_id=project_id, pk=_item_id(item_id))
    except (model.DoesNotExist, ValueError, TypeError):
        raise not_found(target)
    return item_dict(item, model is SampleRequest)


def update_item(
    project_id: str, token: str | None, target: str, item_id, *, text=None, name=None, expected=UNSET
) -> dict:
    """Save a new text/name/expected exactly as given (broken YAML included); returns {"item", "version"}."""
    model = _model(target)
    if text is not None:
        edge.check_text(text, "text")
    if text is not None:
        limits.check_text(text, name if isinstance(name, str) else None)
    with transaction.atomic():
        project = bump_version(project_id, token)
        try:
            item = model.objects.select_for_update().get(project_id=project_id, pk=_item_id(item_id))
        except (model.DoesNotExist, ValueError, TypeError):
            raise not_found(target)
        fields = ["version", "updated"]
        if text is not None and text != item.text:
            _check_project_total(project_id, model, item.pk, text)
            old_text, item.text = item.text, text
            authority.record_replacement(project, target, item, old_text)
            fields += ["text", "collab_version"]
        if name is not None:
            item.name = _clean_name(name, item.name)
            fields.append("name")
        if expected is not UNSET and model is SampleRequest:
            item.expected = clean_expected(expected, item.name)
            fields.append("expected")
        item.version = project.version
        item.save(update_fields=fields)
    return {"item": item_dict(item, model is SampleRequest), "version": project.version}


def delete_item(project_id: str, token: str | None, target: str, item_id) -> dict:
    model = _model(target)
    authorize(get_project(project_id), token)
    with transaction.atomic():
        try:
            item = model.objects.get(project_id=project_id, pk=_item_id(item_id))
        except (model.DoesNotExist, ValueError, TypeError):
            raise not_found(target)
        project = bump_version(project_id)
        authority.forget(target, item.pk)
        item.delete()
    return {"version": project.version}


def update_item_with_state(project_id: str, token: str | None, target: str, item_id, **fields) -> dict:
    """update_item plus the project state right after it (one trip to the database thread for live edits)."""
    saved = update_item(project_id, token, target, item_id, **fields)
    saved["state"] = project_state(project_id)
    return saved
