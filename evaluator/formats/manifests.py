"""A manifest bundle: multi-document YAML or JSON, `kubectl get -o yaml` Lists included.

Import: policies, bindings, their params, namespaces, RBAC and CRDs become documents; every other object
becomes a request (a CREATE of it) with no expected outcome.

Export: the documents' texts, then the requests', as one `---` stream `kubectl apply -f` reads, each text
kept as typed, after a comment line `# admission-playground: {...}` (JSON) naming its project item:
`{"document": name}` or `{"request": name, "expected": {...}}`, and a first one holding the project's title,
description and Kubernetes version. Importing such a bundle restores the project exactly, whatever the
objects' kinds. A text that is not Kubernetes objects (an AdmissionReview, broken YAML) cannot be a
manifest: it is written commented out (`commented: true`, kubectl ignores it; import restores it) and the
export's warnings name it."""

from __future__ import annotations

import json
import re

from evaluator.formats.bounded_yaml import FormatError
from evaluator.formats.objects import (
    document_name,
    is_cluster_state,
    is_object,
    object_text,
    objects_of,
    param_names,
    request_name,
)

MARK = "# admission-playground: "
_MARK_LINE = re.compile(r"^# admission-playground: (\{.*\})[ \t]*$", re.MULTILINE)
SEPARATOR = "---\n"


def import_bundle(text: str, title: str = "Imported manifests", source: str = "manifests.yaml") -> dict:
    if has_marks(text):
        return _import_marked(text, title, source)
    docs = objects_of(text, source)
    if not docs:
        raise FormatError(f"{source}: no object in this bundle")
    bad = [i for i, d in enumerate(docs) if not is_object(d)]
    if bad:
        raise FormatError(f"{source}: document {bad[0] + 1} is not a Kubernetes object (apiVersion and kind)")
    params = param_names(docs)
    documents = [{"name": document_name(d), "text": object_text(d)} for d in docs if is_cluster_state(d, params)]
    requests = [
        {"name": request_name(d), "text": object_text(d), "expected": None}
        for d in docs
        if not is_cluster_state(d, params)
    ]
    return {"title": title, "description": f"Imported from {source}", "documents": documents, "requests": requests}


def _manifest_text(text: str, name: str) -> bool:
    """Whether a text can stand in the stream as it is: Kubernetes objects (Lists of them included), and no
    line that reads as an item's mark."""
    try:
        docs = objects_of(text, name)
    except FormatError:
        return False
    return all(is_object(d) for d in docs) and not _MARK_LINE.search(text)


def marked_item(mark: dict, text: str, what: str, warnings: list[str]) -> str:
    """A text after its mark (`what`: the mark's key naming it), commented out when it is not a manifest."""
    if not _manifest_text(text, mark[what]):
        mark["commented"] = True
        warnings.append(
            f"{what} {mark[what]!r} is not a Kubernetes object (an AdmissionReview, or not valid YAML): it is "
            "written commented out, which kubectl ignores and the playground's import restores"
        )
    if text and not text.endswith("\n"):
        mark["finalNewline"] = False
        text += "\n"
    if mark.get("commented"):
        text = "".join(f"# {line}" if line != "\n" else "#\n" for line in text.splitlines(keepends=True))
    return MARK + json.dumps(mark, ensure_ascii=False) + "\n" + text


def export_bundle(project: dict) -> tuple[str, list[str]]:
    """(the bundle, warnings naming the items that are written commented out)."""
    warnings: list[str] = []
    head = {"title": project.get("title") or "", "description": project.get("description") or ""}
    if project.get("kubernetesVersion"):
        head["kubernetesVersion"] = str(project["kubernetesVersion"])
    items = [MARK + json.dumps({"project": head}, ensure_ascii=False) + "\n"]
    for doc in project.get("documents", []):
        items.append(marked_item({"document": doc["name"]}, doc["text"], "document", warnings))
    for request in project.get("requests", []):
        mark = {"request": request["name"]}
        if request.get("expected"):
            mark["expected"] = dict(request["expected"])
        items.append(marked_item(mark, request["text"], "request", warnings))
    return SEPARATOR.join(items), warnings


def has_marks(text: str) -> bool:
    return bool(_MARK_LINE.search(text))


def marked_items(text: str, source: str) -> list[tuple[dict, str, str]]:
    """(mark, text as it was written, where) of each item of a marked stream."""
    items = []
    marks = list(_MARK_LINE.finditer(text))
    for i, match in enumerate(marks):
        line = text.count("\n", 0, match.start()) + 1
        try:
            mark = json.loads(match.group(1))
        except ValueError:
            raise FormatError(f"{source}:{line}: the admission-playground mark is not JSON") from None
        if not isinstance(mark, dict):
            raise FormatError(f"{source}:{line}: the admission-playground mark is not a JSON object")
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[match.end() + 1 : end]
        if i + 1 < len(marks) and body.endswith(SEPARATOR):
            body = body[: -len(SEPARATOR)]
        if mark.get("commented"):
            body = "".join(line[2:] if line.startswith("# ") else line[1:] for line in body.splitlines(keepends=True))
        if mark.get("finalNewline") is False and body.endswith("\n"):
            body = body[:-1]
        items.append((mark, body, f"{source}:{line}"))
    return items


def _import_marked(text: str, title: str, source: str) -> dict:
    """The project a marked bundle (what export writes) holds: each item's text as it was written."""
    project: dict = {"title": title, "description": f"Imported from {source}", "documents": [], "requests": []}
    for mark, body, where in marked_items(text, source):
        _add(project, mark, body, where)
    return project


def _add(project: dict, mark: dict, body: str, where: str) -> None:
    if isinstance(mark.get("project"), dict):
        head = mark["project"]
        project["title"] = str(head.get("title") or project["title"])
        project["description"] = str(head.get("description") or "")
        if head.get("kubernetesVersion"):
            project["kubernetesVersion"] = str(head["kubernetesVersion"])
        return
    if isinstance(mark.get("document"), str):
        project["documents"].append({"name": mark["document"], "text": body})
    elif isinstance(mark.get("request"), str):
        expected = mark.get("expected")
        if expected is not None:
            from evaluator.expectations import ExpectationError, clean_expected

            try:
                expected = clean_expected(expected)
            except ExpectationError as exc:
                raise FormatError(f"{where}: {exc.path}: {exc}") from None
        project["requests"].append({"name": mark["request"], "text": body, "expected": expected})
    else:
        raise FormatError(f"{where}: the admission-playground mark names no document or request")
