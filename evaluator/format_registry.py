"""The formats by name, as the API, the page and the MCP server offer them: how each is imported from an
upload (bytes) and exported from a project (bytes, media type, file name, warnings). Outside
evaluator/formats because the kyverno-test export checks its rows with the `kyverno-test` command's own
runners (evaluator/cli/kyverno_test/export.py), which read files through evaluator/formats."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from evaluator.cli.kyverno_test import export as kyverno_test_export
from evaluator.formats import admission_review, kaptest, kyverno_test, manifests, project_files
from evaluator.formats.archives import read_archive, write_zip
from evaluator.formats.bounded_yaml import FormatError


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("the upload is not UTF-8 text (a folder is uploaded as a zip or tar archive)") from None


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (title or "project").lower()).strip("-")[:60] or "project"


@dataclass(frozen=True)
class Format:
    name: str
    label: str
    importer: Callable[[bytes], dict] | None
    exporter: Callable[[dict], tuple[bytes, str, str, list[str]]] | None


def _export_folder(convert: Callable[[dict], tuple[dict[str, str], list[str]]], suffix: str):
    def export(project: dict) -> tuple[bytes, str, str, list[str]]:
        files, warnings = convert(project)
        root = f"{_slug(project.get('title', ''))}{suffix}"
        return write_zip(files, root), "application/zip", f"{root}.zip", warnings

    return export


def _export_text(convert: Callable[[dict], tuple[str, list[str]]], media_type: str, suffix: str):
    def export(project: dict) -> tuple[bytes, str, str, list[str]]:
        text, warnings = convert(project)
        return text.encode(), media_type, f"{_slug(project.get('title', ''))}{suffix}", warnings

    return export


def _from_text(read: Callable[[str], dict]) -> Callable[[bytes], dict]:
    return lambda data: read(_text(data))


def _from_archive(read: Callable[[dict[str, str]], dict]) -> Callable[[bytes], dict]:
    return lambda data: read(read_archive(data))


# (name, label, importer, exporter) of every format, in the order the page lists them
_TABLE = (
    (
        "project",
        "Project file (admission-playground test)",
        _from_text(project_files.read_project),
        _export_text(lambda project: (project_files.write_project(project), []), "application/yaml", ".yaml"),
    ),
    (
        "kyverno-test",
        "Kyverno test folder (zip/tar)",
        _from_archive(kyverno_test.import_folder),
        _export_folder(kyverno_test_export.export_folder, ""),
    ),
    (
        "kaptest",
        "kaptest suite (zip/tar)",
        _from_archive(kaptest.import_suite),
        _export_folder(kaptest.export_suite, ".test"),
    ),
    (
        "manifests",
        "Manifest bundle (YAML/JSON, Lists)",
        _from_text(manifests.import_bundle),
        _export_text(manifests.export_bundle, "application/yaml", "-manifests.yaml"),
    ),
    (
        "admission-review",
        "AdmissionReview (JSON): request and response",
        _from_text(admission_review.import_review),
        _export_text(admission_review.export_reviews, "application/json", "-admissionreview.json"),
    ),
)
FORMATS = {name: Format(name, label, importer, exporter) for name, label, importer, exporter in _TABLE}
