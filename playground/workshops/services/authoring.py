"""Exercise sets as one YAML file, so teachers share them in git: export a stored set, import a file.

The exported file is the shipped format (`sets/*.yaml`) with everything spelled out (solution documents,
starter documents, checks with titles), so it reads back without the gallery. An import is validated
before it is stored: every solution passes all of its checks and every starter fails at least one (an
exercise the starter already solves, or the solution cannot solve, would only confuse a class).
"""

from __future__ import annotations

import re

import yaml

from playground.evaluation import service as evaluation_service
from playground.core import limits
from playground.core.errors import ServiceError
from playground.workshops.models import ExerciseSet
from playground.workshops.services import catalog
from playground.evaluation.workshop.checks import judge

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


class _NoAliases(yaml.SafeDumper):
    """Imports refuse aliases, so exports never write them (shared values are written out in full)."""

    def ignore_aliases(self, data) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    """Multi-line text (documents, requests, Markdown) as a literal block, so the file reads and diffs well."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_NoAliases.add_representer(str, _text)


def dump_set(content: dict) -> str:
    """A set ({slug, title, description, exercises}) as the YAML file that import reads back."""
    return yaml.dump(content, Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=120)


def set_file(slug: str) -> dict:
    """A stored set as the file's content (what an export writes; the authoring page edits a copy of it)."""
    exercise_set = catalog.get_set(slug)
    return _file_content(
        {
            "slug": exercise_set.slug,
            "title": exercise_set.title,
            "description": exercise_set.description,
            "exercises": [
                {
                    "slug": e.slug,
                    "title": e.title,
                    "task": e.task,
                    "hints": e.hints,
                    "solution": e.solution,
                    "starter": e.starter,
                    "checks": e.checks,
                }
                for e in exercise_set.exercises.all()
            ],
        }
    )


def export_set(slug: str) -> str:
    return dump_set(set_file(slug))


def _file_content(content: dict) -> dict:
    """The stored form of a set (catalog.parse_set's) as the file writes it."""
    return {
        "slug": content["slug"],
        "title": content["title"],
        "description": content["description"],
        "exercises": [_exercise(e) for e in content["exercises"]],
    }


_EXPECTED_ORDER = ("allowed", "outcome", "messageContains", "mutated", "auditAnnotations", "kyverno")


def _sorted(value):
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    return [_sorted(item) for item in value] if isinstance(value, list) else value


def _expected(expected: dict) -> dict:
    """One key order whatever the database kept (PostgreSQL's jsonb reorders keys), so an export is stable."""
    order = [key for key in _EXPECTED_ORDER if key in expected] + sorted(set(expected) - set(_EXPECTED_ORDER))
    return {key: _sorted(expected[key]) for key in order}


def _documents(documents: list[dict]) -> list[dict]:
    return [{"name": d["name"], "text": d["text"]} for d in documents]


def _exercise(exercise: dict) -> dict:
    return {
        "slug": exercise["slug"],
        "title": exercise["title"],
        "task": exercise["task"],
        "hints": list(exercise["hints"]),
        "documents": _documents(exercise["solution"]),
        "starter": _documents(exercise["starter"]),
        "checks": [
            {
                "name": c["name"],
                "title": c.get("title") or c["name"],
                "hidden": bool(c.get("hidden")),
                "show_expected": bool(c.get("showExpected")),
                "text": c["text"],
                "expected": _expected(c["expected"]),
            }
            for c in exercise["checks"]
        ],
    }


def compose(*, data: dict) -> dict:
    """The authoring page's set (the file's fields as JSON) → {yaml, valid, error?}: the file an export writes,
    and whether it passes the import's checks (every solution passes all its checks, every starter fails one).
    A set whose shape is wrong (no documents, a check without a request) is a 400 naming the exercise."""
    text = dump_set(_file_content(catalog.parse_set(data, str(data.get("slug") or "my-set"))))
    try:
        checked_set(text)
    except ServiceError as exc:
        return {"yaml": text, "valid": False, "error": {"code": exc.code, "message": exc.message}}
    return {"yaml": text, "valid": True}


def _load(text: str) -> dict:
    """Parse an uploaded file: bounded in size, no YAML aliases (a few lines could expand to gigabytes)."""
    limits.check_total([limits.text_size(text)])
    try:
        if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=yaml.SafeLoader)):
            raise ServiceError("invalid_exercise", "YAML aliases are not allowed in an exercise set")
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ServiceError("invalid_exercise", f"invalid YAML: {exc}") from None


def validate(content: dict) -> None:
    """Every solution passes all its checks; every starter fails at least one (errors name the exercise)."""
    for exercise in content["exercises"]:
        where = f"exercise {exercise['position'] + 1} ({exercise['slug']})"
        for label, want_all in (("solution", True), ("starter", False)):
            loaded = evaluation_service.load_documents(evaluation_service.named_texts(exercise[label]))
            failing = [
                check["name"]
                for check in exercise["checks"]
                if judge(check["expected"], evaluation_service.run_request(loaded, check["text"]))[0] != "pass"
            ]
            if want_all and failing:
                raise ServiceError("invalid_exercise", f"{where}: the solution fails check(s): {', '.join(failing)}")
            if not want_all and not failing:
                raise ServiceError("invalid_exercise", f"{where}: the starter already passes every check")


def checked_set(text: str, default_slug: str = "imported") -> dict:
    """A set file's content, parsed and validated as every set is (an import and the shipped files alike)."""
    content = catalog.parse_set(_load(text), default_slug)
    if not SLUG.match(content["slug"]):
        raise ServiceError("invalid_exercise", "slug: lower-case letters, digits and dashes (at most 80)")
    validate(content)
    return content


def import_set(*, text: str) -> ExerciseSet:
    """Validate and store a new set; an existing set (a shipped one included) is never overwritten."""
    content = checked_set(text)
    if (
        ExerciseSet.objects.filter(slug=content["slug"]).exists()
        or (catalog.SETS_DIR / f"{content['slug']}.yaml").exists()
    ):
        raise ServiceError("conflict", f"a set named {content['slug']!r} exists already: choose another slug", 409)
    return catalog.store_set(content)


def load_shipped_sets() -> list[str]:
    """Store (or refresh) every set file of the repository, each validated like an import; returns the slugs.
    A file that does not validate stops the load with its name in the error."""
    slugs = []
    for path in sorted(catalog.SETS_DIR.glob("*.yaml")):
        try:
            content = checked_set(path.read_text(encoding="utf-8"), path.stem)
        except ServiceError as exc:
            raise ServiceError(exc.code, f"{path.name}: {exc.message}") from None
        slugs.append(catalog.store_set(content).slug)
    return slugs
