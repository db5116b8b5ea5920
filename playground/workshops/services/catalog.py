"""Exercise sets: YAML files in playground/workshops/sets/, stored in the database by `load_workshops`.

One format for the shipped sets, exports and imports (services/authoring.py writes and validates it):
{slug, title, description, exercises: [{slug, title, task (Markdown), hints, documents (the reference
solution), starter (what students start from), checks: [{name, title, hidden, show_expected, text,
expected}]}]}. Hidden checks count only after the student submits.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from django.db import transaction

from playground.core.errors import ServiceError, not_found
from playground.workshops.models import Exercise, ExerciseSet
from playground.workshops.services import markdown
from playground.evaluation.workshop.checks import clean_check, split_expected

SETS_DIR = Path(__file__).resolve().parent.parent / "sets"


def _documents(items, where: str) -> list[dict]:
    if not isinstance(items, list) or not all(isinstance(d, dict) and isinstance(d.get("text"), str) for d in items):
        raise ServiceError("invalid_exercise", f"{where}: documents are a list of {{name, text}}")
    return [{"name": str(d.get("name") or f"document-{i + 1}"), "text": d["text"]} for i, d in enumerate(items)]


def build_exercise(data: dict, position: int) -> dict:
    """The stored form of one exercise from its file entry (documents and checks validated)."""
    where = f"exercise {position + 1}"
    solution = _documents(data.get("documents") or [], where)
    checks = list(data.get("checks") or [])
    if not solution or not checks:
        raise ServiceError("invalid_exercise", f"{where}: an exercise needs documents and checks")
    if "starter" not in data:
        raise ServiceError("invalid_exercise", f"{where}: an exercise needs starter documents")
    return {
        "position": position,
        "slug": str(data.get("slug") or f"exercise-{position + 1}"),
        "title": str(data.get("title") or f"Exercise {position + 1}"),
        "task": str(data.get("task") or ""),
        "hints": [str(h) for h in data.get("hints") or []],
        "starter": _documents(data["starter"], where),
        "solution": solution,
        "checks": [clean_check(check, i) for i, check in enumerate(checks)],
    }


def read_set_file(path: Path) -> dict:
    return parse_set(yaml.safe_load(path.read_text(encoding="utf-8")), path.stem)


def parse_set(data, default_slug: str) -> dict:
    """The stored form of a set file's content (a shipped file or an imported one)."""
    if not isinstance(data, dict) or not isinstance(data.get("exercises"), list) or not data["exercises"]:
        raise ServiceError("invalid_exercise", f"{default_slug}: a set needs an exercises list")
    if not all(isinstance(item, dict) for item in data["exercises"]):
        raise ServiceError("invalid_exercise", f"{default_slug}: each exercise is a mapping")
    return {
        "slug": str(data.get("slug") or default_slug),
        "title": str(data.get("title") or default_slug),
        "description": str(data.get("description") or ""),
        "exercises": [build_exercise(item, i) for i, item in enumerate(data["exercises"])],
    }


def store_set(content: dict) -> ExerciseSet:
    """Create or refresh a set; exercises keep their ids (rooms and forks point at them) when slugs match."""
    with transaction.atomic():
        exercise_set, _ = ExerciseSet.objects.update_or_create(
            slug=content["slug"], defaults={"title": content["title"], "description": content["description"]}
        )
        existing = {e.slug: e for e in exercise_set.exercises.all()}
        keep = {item["slug"] for item in content["exercises"]}
        for slug, stale in existing.items():
            if slug not in keep and not stale.forks.exists():
                stale.delete()
        # Park kept exercises on free positions first: positions are unique within a set.
        for exercise in exercise_set.exercises.all():
            exercise.position = 100_000 + exercise.id
            exercise.save(update_fields=["position"])
        for item in content["exercises"]:
            Exercise.objects.update_or_create(
                exercise_set=exercise_set, slug=item["slug"], defaults={k: v for k, v in item.items() if k != "slug"}
            )
    return exercise_set


def get_set(slug: str) -> ExerciseSet:
    """A stored set, loading the shipped file of that slug on first use (so rooms work before `load_workshops`)."""
    found = ExerciseSet.objects.filter(slug=slug).first()
    if found is None:
        path = SETS_DIR / f"{slug}.yaml"
        if not slug or "/" in slug or not path.is_file():
            raise not_found("exercise set")
        found = store_set(read_set_file(path))
    return found


def list_sets() -> list[dict]:
    stored = {s.slug: s for s in ExerciseSet.objects.all()}
    slugs = sorted(set(stored) | {path.stem for path in SETS_DIR.glob("*.yaml")})
    listed = []
    for slug in slugs:
        exercise_set = stored.get(slug) or get_set(slug)
        listed.append(
            {
                "slug": slug,
                "title": exercise_set.title,
                "description": exercise_set.description,
                "exercises": [
                    {"position": e.position, "slug": e.slug, "title": e.title} for e in exercise_set.exercises.all()
                ],
            }
        )
    return listed


def visible_checks(exercise: Exercise) -> list[dict]:
    return [check for check in exercise.checks if not check.get("hidden")]


def student_expected(check: dict) -> dict | None:
    """The part of a visible check's expectation a student may read: the outcome, and the message only
    when the author chose to show it (a message to match often is the answer)."""
    base = split_expected(check["expected"])[0] or {}
    if not check.get("showExpected"):
        base.pop("messageContains", None)
    return base or None


def student_view(exercise: Exercise, hints_shown: int = 0, solution_shown: bool = False) -> dict:
    """What a student may see of an exercise: no hidden check, no solution until the teacher reveals it."""
    view = {
        "id": exercise.id,
        "position": exercise.position,
        "slug": exercise.slug,
        "title": exercise.title,
        "taskHtml": markdown.render(exercise.task),
        "hints": [{"index": i, "html": markdown.render(h)} for i, h in enumerate(exercise.hints[:hints_shown])],
        "hintCount": len(exercise.hints),
        "hiddenChecks": len(exercise.checks) - len(visible_checks(exercise)),
        "checks": [
            {"name": c["name"], "title": c.get("title") or c["name"], "expected": student_expected(c)}
            for c in visible_checks(exercise)
        ],
        "solution": exercise.solution if solution_shown else None,
    }
    return view


def teacher_view(exercise: Exercise) -> dict:
    return {
        "id": exercise.id,
        "position": exercise.position,
        "slug": exercise.slug,
        "title": exercise.title,
        "taskHtml": markdown.render(exercise.task),
        "hints": [{"index": i, "html": markdown.render(h)} for i, h in enumerate(exercise.hints)],
        "checks": exercise.checks,
        "starter": exercise.starter,
        "solution": exercise.solution,
    }
