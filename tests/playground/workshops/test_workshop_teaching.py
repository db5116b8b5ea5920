"""Workshops that teach without giving away: check titles, the student's own outcome and message, the
expectation only where the author shows it; a room that finishes cleanly and is read-only once closed."""

from __future__ import annotations

import pytest
import yaml

from playground.core.errors import ServiceError
from playground.workshops.services import catalog, progress
from playground.evaluation.workshop import engine
from playground.evaluation.workshop.checks import clean_check
from tests.playground.workshops.workshop_fixtures import join, open_room


def _shipped():
    return catalog.read_set_file(catalog.SETS_DIR / "admission-basics.yaml")


def _shipped_file() -> dict:
    return yaml.safe_load((catalog.SETS_DIR / "admission-basics.yaml").read_text())


def test_every_shipped_check_has_an_author_title_and_no_title_is_a_bare_request_name():
    for exercise in _shipped()["exercises"]:
        for check in exercise["checks"]:
            assert check["title"] and check["title"] != check["name"], (exercise["slug"], check["name"])
        assert not exercise["title"][:1].isdigit()  # the page numbers exercises itself ("1. 1. …" no more)
    first = _shipped()["exercises"][0]["checks"][0]
    assert first["title"] == "a Deployment with 6 replicas is denied" and first["showExpected"] is False


def test_an_exercise_without_a_starter_or_a_blank_title_is_an_authoring_error():
    entry = _shipped_file()["exercises"][0]
    del entry["starter"]
    with pytest.raises(ServiceError, match="starter"):
        catalog.build_exercise(entry, 0)
    with pytest.raises(ServiceError, match="title"):
        clean_check({"name": "c", "text": "x", "title": "  "}, 0)


@pytest.mark.django_db
def test_a_failing_check_shows_the_students_outcome_and_message_but_not_the_expected_message():
    room, _ = open_room()
    participant, _, _ = join(room["code"])
    ctx = progress.context(participant.id)  # the starter lets everything through
    result = engine.evaluate(ctx)
    seen = engine.preview(ctx, result["checks"], result["version"])
    denied = next(c for c in seen["checks"] if c["name"] == "CREATE Deployment default/nginx")
    assert denied == {
        "name": "CREATE Deployment default/nginx",
        "title": "a Deployment with 6 replicas is denied",
        "hidden": False,
        "verdict": "fail",
        "outcome": "allowed",
        "message": "",
    }
    assert "object.spec.replicas <= 5" not in str(seen)  # the answer is nowhere in what the student gets
    stored = progress.record(ctx, result["checks"], result["version"])
    assert "object.spec.replicas <= 5" not in str(stored["student"])
    assert "object.spec.replicas <= 5" in str(stored["teacher"])  # the teacher sees why it fails
    # Nor in the exercise view or the fork's own sample requests.
    from playground.workshops.services import participants as p

    state = p.student_state(participant)
    assert "object.spec.replicas <= 5" not in str(state["exercise"]) + str(state["fork"]["project"]["requests"])


@pytest.mark.django_db
def test_a_check_the_author_shows_carries_the_comparison_with_the_expectation():
    room, token = open_room()
    participant, _, _ = join(room["code"])
    from playground.workshops.services import rooms

    rooms.advance(code=room["code"], token=token, position=3)  # messageExpression: the task states the message itself
    ctx = progress.context(participant.id)
    result = engine.evaluate(ctx)
    seen = engine.preview(ctx, result["checks"], result["version"])
    named = next(c for c in seen["checks"] if c["name"] == "two containers, one limited")
    assert named["verdict"] == "fail" and named["outcome"] == "denied"
    assert named["message"] and "some containers have no memory limit" in named["message"]
    assert "pod web: containers without a memory limit: sidecar" in named["explanation"]
    other = next(c for c in seen["checks"] if c["name"] == "all limited")
    assert "explanation" not in other
