"""The project file: the gallery's YAML (playground/examples/*.yaml), what `admission-playground test` runs.

{title, description, tags?, kubernetesVersion?, documents: [{name, text}], requests: [{name, text, expected?}]}
(`kubernetesVersion`: the release the project simulates, "1.N"; absent: the newest.) A gallery file's own
fields (`group`, `difficulty`, `kubernetes`, `kyverno`, `source`: playground/services/example_meta.py) are
kept as they are, so reading and writing a gallery file changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluator.expectations import ExpectationError, clean_expected
from evaluator.formats.bounded_yaml import FormatError, dump, load_one

SUFFIXES = (".yaml", ".yml")
GALLERY_FIELDS = ("group", "difficulty", "kubernetes", "kyverno", "source")


def _entries(data: dict, key: str, source: str) -> list[dict]:
    entries = data.get(key) or []
    if not isinstance(entries, list):
        raise FormatError(f"{source}: {key} must be a list")
    cleaned = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise FormatError(f"{source}: {key}[{i}] needs a text")
        cleaned.append({"name": str(entry.get("name") or f"{key[:-1]} {i + 1}"), "text": entry["text"]})
        if key == "requests":
            try:
                cleaned[-1]["expected"] = clean_expected(entry.get("expected"))
            except ExpectationError as exc:
                raise FormatError(f"{source}: {key}[{i}].{exc.path}: {exc}") from None
    return cleaned


def is_project(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("documents"), list)


def read_project(text: str, source: str = "project.yaml") -> dict:
    data = load_one(text, source)
    if not is_project(data):
        raise FormatError(f"{source}: a project file needs a documents list")
    project = {
        "title": str(data.get("title") or Path(source).stem),
        "description": str(data.get("description") or ""),
        "tags": [str(t) for t in data.get("tags") or []],
        "documents": _entries(data, "documents", source),
        "requests": _entries(data, "requests", source),
    }
    if data.get("kubernetesVersion") is not None:
        project["kubernetesVersion"] = _version(data["kubernetesVersion"], source)
    project.update({key: data[key] for key in GALLERY_FIELDS if data.get(key) is not None})
    return project


def _version(value: Any, source: str) -> str:
    from evaluator.cel.versions import parse_version

    try:
        return parse_version(str(value))
    except ValueError as exc:
        raise FormatError(f"{source}: kubernetesVersion: {exc}") from None


def write_project(project: dict) -> str:
    out: dict[str, Any] = {"title": project.get("title") or "", "description": project.get("description") or ""}
    if project.get("tags"):
        out["tags"] = list(project["tags"])
    if project.get("kubernetesVersion"):
        out["kubernetesVersion"] = str(project["kubernetesVersion"])
    out.update({key: project[key] for key in GALLERY_FIELDS if project.get(key) is not None})
    out["documents"] = [{"name": d["name"], "text": d["text"]} for d in project.get("documents", [])]
    out["requests"] = []
    for r in project.get("requests", []):
        entry = {"name": r["name"], "text": r["text"]}
        if r.get("expected"):
            entry["expected"] = dict(r["expected"])
        out["requests"].append(entry)
    return dump(out)


def find_project_files(root: Path) -> list[Path]:
    """`root` itself when it is a file, else every *.yaml/*.yml under it that is a project file, in order."""
    if root.is_file():
        return [root]
    found = []
    for path in sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "\ndocuments:" in "\n" + head:  # cheap pre-filter; read_project decides
            found.append(path)
    return found


def files_under(paths: list[str], find: Callable[[Path], list[Path]], none_found: str) -> tuple[list[Path], list[str]]:
    """(the files `find` picks under each path, in order; a problem for each path that does not exist or
    holds none, `none_found` saying what is missing)."""
    files: list[Path] = []
    problems: list[str] = []
    for name in paths:
        root = Path(name)
        if not root.exists():
            problems.append(f"{name}: error: no such file or folder")
            continue
        found = find(root)
        if not found:
            problems.append(f"{name}: error: no {none_found} in this folder")
        files += found
    return files, problems
