"""The formats by name, as the API, the page and the MCP server offer them: how each is imported from an
upload (bytes) and exported from a project (bytes, media type, file name, warnings)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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


def _export_manifests(project: dict) -> tuple[bytes, str, str, list[str]]:
    text, warnings = manifests.export_bundle(project)
    return text.encode(), "application/yaml", f"{_slug(project.get('title', ''))}-manifests.yaml", warnings


def _export_reviews(project: dict) -> tuple[bytes, str, str, list[str]]:
    text, warnings = admission_review.export_reviews(project)
    return text.encode(), "application/json", f"{_slug(project.get('title', ''))}-admissionreview.json", warnings


def _export_project(project: dict) -> tuple[bytes, str, str, list[str]]:
    return (
        project_files.write_project(project).encode(),
        "application/yaml",
        f"{_slug(project.get('title', ''))}.yaml",
        [],
    )


FORMATS = {
    f.name: f
    for f in (
        Format(
            "project",
            "Project file (admission-playground test)",
            lambda data: project_files.read_project(_text(data)),
            _export_project,
        ),
        Format(
            "kyverno-test",
            "Kyverno test folder (zip/tar)",
            lambda data: kyverno_test.import_folder(read_archive(data)),
            _export_folder(kyverno_test.export_folder, ""),
        ),
        Format(
            "kaptest",
            "kaptest suite (zip/tar)",
            lambda data: kaptest.import_suite(read_archive(data)),
            _export_folder(kaptest.export_suite, ".test"),
        ),
        Format(
            "manifests",
            "Manifest bundle (YAML/JSON, Lists)",
            lambda data: manifests.import_bundle(_text(data)),
            _export_manifests,
        ),
        Format(
            "admission-review",
            "AdmissionReview (JSON): request and response",
            lambda data: admission_review.import_review(_text(data)),
            _export_reviews,
        ),
    )
}
