"""What a round trip through a format changed in a project, each change naming the project item: used by
the tests that take every gallery project and kyverno/policies folder through every format, and by
bench/format_round_trips.py over a whole kyverno/policies clone."""

from __future__ import annotations

from typing import Any

from evaluator.formats.bounded_yaml import FormatError, load_all
from evaluator.formats.project_files import GALLERY_FIELDS

PROJECT_FIELDS = ("title", "description", "tags", "kubernetesVersion", *GALLERY_FIELDS)


def _content(text: str, as_data: bool) -> Any:
    if not as_data:
        return text
    try:
        return load_all(text)
    except FormatError:
        return text


def changes(
    before: dict, after: dict, *, fields: tuple[str, ...] = PROJECT_FIELDS, as_data: bool = False, names: bool = True
) -> list[str]:
    """Every difference between two projects: the `fields`, then each document and request by position
    (name, text — compared as YAML data when `as_data` —, expected outcome); [] when none."""
    found = [
        f"{field}: {before.get(field)!r} became {after.get(field)!r}"
        for field in fields
        if before.get(field) != after.get(field)
    ]
    for key in ("documents", "requests"):
        old, new = before.get(key) or [], after.get(key) or []
        what = key[:-1]
        if len(old) != len(new):
            found.append(f"{key}: {len(old)} became {len(new)}")
        for a, b in zip(old, new):
            label = f"{what} {a.get('name')!r}"
            if names and a.get("name") != b.get("name"):
                found.append(f"{label}: named {b.get('name')!r}")
            if _content(a.get("text", ""), as_data) != _content(b.get("text", ""), as_data):
                found.append(f"{label}: its text changed")
            if key == "requests" and (a.get("expected") or None) != (b.get("expected") or None):
                found.append(f"{label}: expected {a.get('expected')!r} became {b.get('expected')!r}")
    return found
