"""From what a caller gives `simulate` to the documents the admission plugins see, as `kubectl apply` would.

`load` accepts YAML/JSON text, one object, or a list of texts and objects, and never raises: what cannot be
read becomes a located error. `default_and_validate` applies the API server's defaulting and create-time
validation to admission policies and bindings (dropping refused ones, or under `api_validation="report"`
only reporting them); policy kinds may refuse more (`PolicyKind.refuse`). `deduplicate` lets a later
document replace an earlier one of the same identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from evaluator.admission import parsed_texts
from evaluator.admission.documents import Document, deduplicate, load_documents, load_objects
from evaluator.admission.error_location import locate
from evaluator.admission.hints import hint_for
from evaluator.admission.expressions import compile_check
from evaluator.admission.remembered_prepare import remembered_prepare
from evaluator.k8s.kinds import ADMISSION_GROUP, ADMISSION_KINDS

__all__ = ["load", "default_and_validate", "deduplicate", "located", "text_source", "NamedText"]


class NamedText(str):
    """A document text that carries the name every message calls it by (its file, the editor's tab)."""

    name: str

    def __new__(cls, text: str, name: str) -> NamedText:
        named = super().__new__(cls, text)
        named.name = name
        return named

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:  # worker processes receive it named
        return NamedText, (str(self), self.name)


def text_source(position: int, text: Any = None) -> str:
    """The `source` of errors in the position-th text of a document list: the text's name when it is a
    `NamedText`, else `<text N>`."""
    name = getattr(text, "name", None)
    return name if isinstance(name, str) and name else f"<text {position}>"


def located(doc: Any, point: tuple[int, int] | None = None, **extra: Any) -> dict[str, Any]:
    """An error or warning about a loaded document, with its location, kind and name. With a field `path`,
    the location is the character the error is about (error_location.py): the (line, column) inside the
    expression that cel-go's message names, or `point` when the caller knows it."""
    location = locate(doc, extra.get("path"), extra.get("message"), point=point) if hasattr(doc, "location") else {}
    hint = hint_for(extra.get("message"), extra.get("expression") or extra.get("value"))
    return {
        **location,
        "kind": getattr(doc, "kind", None),
        "name": getattr(doc, "name", None),
        **({"hint": hint} if hint else {}),
        **extra,
    }


def _dicts(errors: Iterable[Any]) -> list[dict]:
    return [dict(e) if isinstance(e, Mapping) else e.to_dict() for e in errors]


def load(documents: Any) -> tuple[list[Document], list[dict]]:
    """(Document records, errors with severity) from text, an object, or a list of texts and objects."""
    errors: list[Any]
    if isinstance(documents, str):
        records, errors = load_documents(documents, getattr(documents, "name", None))
    elif isinstance(documents, Mapping):
        records, errors = load_objects([documents])
    elif isinstance(documents, Iterable):
        records, errors = _load_list(list(documents))
    else:
        records, errors = (
            [],
            [
                {
                    "message": f"documents must be YAML text or a list of objects, not {type(documents).__name__}",
                    "document": None,
                }
            ],
        )
    return records, [{"severity": "error", **e} for e in _dicts(errors)]


def _load_list(documents: list[Any]) -> tuple[list[Document], list[dict]]:
    """Texts (each multi-document YAML) and objects in any mix; `document` of every record and error is its
    position in the list (texts are loaded first, then objects, as before positions were kept)."""
    records: list[Document] = []
    errors: list[dict] = []
    texts = [(i, d) for i, d in enumerate(documents) if isinstance(d, str)]
    objects = [(i, d) for i, d in enumerate(documents) if not isinstance(d, str)]
    for number, (position, text) in enumerate(texts):
        loaded, problems = parsed_texts.load_documents(text, text_source(number, text))
        for record in loaded:
            record.position = position
        records += loaded
        errors += [{**e, "document": position, "yamlDocument": e["document"]} for e in _dicts(problems)]
    loaded, problems = load_objects([d for _, d in objects])
    for record in loaded:
        record.position = objects[record.index][0]
    records += loaded
    errors += [{**e, "document": objects[e["document"]][0]} for e in _dicts(problems)]
    return records, errors


def default_and_validate(
    records: list[Document], api_validation: str, refusers: Iterable[Callable[[Mapping[str, Any]], list[dict]]] = ()
) -> tuple[list[Document], list[dict]]:
    """(kept records, errors): admission policies and bindings defaulted and validated as on create."""
    kept, problems = [], []
    refusers = list(refusers)
    enforce = api_validation != "report"
    for record in records:
        if record.group != ADMISSION_GROUP or record.kind not in ADMISSION_KINDS:
            if not (enforce and _refused(record, refusers, problems)):
                kept.append(record)
            continue
        try:
            prepared = remembered_prepare(record.data, compile_check if enforce else None)
        except Exception as exc:  # a bug in validation must cost this document only
            problems.append(
                located(
                    record, severity="error", message=f"internal error while validating: {type(exc).__name__}: {exc}"
                )
            )
            continue
        for warning in _dicts(prepared.warnings):
            problems.append(located(record, severity="warning", **warning))
        errors = _dicts(prepared.errors)
        if errors:
            for error in errors:
                problems.append(
                    located(record, severity="error" if enforce else "warning", takesPart=not enforce, **error)
                )
            if enforce:
                continue
        record.data = dict(prepared.object)
        if enforce and _refused(record, refusers, problems):
            continue
        kept.append(record)
    return kept, problems


def _refused(record: Document, refusers: list[Callable], problems: list[dict]) -> bool:
    refused = False
    for refuse in refusers:
        for error in refuse(record.data):
            problems.append(located(record, severity="error", **error))
            refused = True
    return refused
