"""Workshop services without sockets: checks, Markdown, the fair queue, the shipped set, CSV."""

import asyncio
from datetime import timedelta

import pytest
from django.utils import timezone

from playground.evaluation import service as evaluation_service
from playground.core.errors import ServiceError
from playground.workshops.services import catalog, export, participants, progress, rooms
from playground.evaluation.workshop import engine
from playground.evaluation.workshop.checks import clean_check, judge
from playground.workshops.services.fair_queue import FairQueue
from playground.workshops.services.markdown import render
from tests.playground.workshops.workshop_fixtures import join, open_room


def _run(documents: list[str], request: str) -> dict:
    return evaluation_service.run_request(evaluation_service.load_documents(documents), request)


def _shipped():
    return catalog.read_set_file(catalog.SETS_DIR / "admission-basics.yaml")


@pytest.mark.parametrize("index", range(7))
def test_each_shipped_solution_passes_every_check_and_its_starter_does_not(index):
    exercise = _shipped()["exercises"][index]
    for label, want_all in (("solution", True), ("starter", False)):
        loaded = evaluation_service.load_documents([d["text"] for d in exercise[label]])
        verdicts = [
            judge(c["expected"], evaluation_service.run_request(loaded, c["text"]))[0] for c in exercise["checks"]
        ]
        assert (verdicts == ["pass"] * len(verdicts)) is want_all, (label, verdicts)


def test_shipped_set_follows_the_issue_order_and_uses_every_kind_of_expectation():
    exercises = _shipped()["exercises"]
    assert len(exercises) == 7
    kinds = {key for e in exercises for c in e["checks"] for key in c["expected"]}
    assert {"mutated", "kyverno", "auditAnnotations", "outcome", "messageContains"} <= kinds
    assert all(
        any(c["hidden"] for c in e["checks"]) or e["slug"] in {"message-expression", "audit-annotations"}
        for e in exercises
    )
    assert "Kyverno" in exercises[6]["title"] and "MAP" in exercises[5]["title"]


def test_mutated_expectations_read_the_patched_object_by_json_pointer():
    exercise = _shipped()["exercises"][5]
    pod = exercise["checks"][-1]["text"]
    solution = _run([d["text"] for d in exercise["solution"]], pod)
    starter = _run([d["text"] for d in exercise["starter"]], pod)
    assert judge({"mutated": {"/metadata/labels/owner": "champbreed"}}, solution)[0] == "pass"
    outcome, message = judge({"mutated": {"/metadata/labels/owner": "champbreed"}}, starter)
    assert outcome == "fail" and '"nobody"' in message
    assert judge({"mutated": {"/metadata/labels/missing": "x"}}, solution) == (
        "fail",
        'expected /metadata/labels/missing = "x", got absent',
    )


def test_kyverno_rule_results_are_judged_per_rule():
    exercise = _shipped()["exercises"][6]
    request = exercise["checks"][0]["text"]
    result = _run([d["text"] for d in exercise["solution"]], request)
    assert judge({"kyverno": [{"rule": "check-deployment-replicas", "result": "fail"}]}, result)[0] == "pass"
    outcome, message = judge(
        {"kyverno": [{"policy": "check-deployment-replicas", "rule": "check-deployment-replicas", "result": "pass"}]},
        result,
    )
    assert outcome == "fail" and "got fail" in message


def test_bad_checks_are_rejected_with_their_name():
    with pytest.raises(ServiceError, match="mutated"):
        clean_check({"name": "c", "text": "x", "expected": {"mutated": {"metadata.labels": 1}}}, 0)
    with pytest.raises(ServiceError, match="kyverno"):
        clean_check({"name": "c", "text": "x", "expected": {"kyverno": [{"rule": "r", "result": "maybe"}]}}, 0)
    with pytest.raises(ServiceError, match="unknown expected"):
        clean_check({"name": "c", "text": "x", "expected": {"allowd": True}}, 0)


def test_markdown_is_rendered_and_sanitised():
    html = render(
        "**bold** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)> "
        "[ok](https://example.org)"
    )
    assert "<strong>bold</strong>" in html
    assert "<script" not in html and 'href="javascript' not in html and "<img" not in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>' in html
    assert "&lt;script&gt;" in html  # typed HTML shows as text


async def test_fair_queue_gives_each_client_one_slot_and_keeps_only_the_newest_job():
    queue = FairQueue(slots=2)
    started: list[str] = []
    slow_release = asyncio.Event()

    def job(label: str, wait: asyncio.Event | None = None):
        async def run():
            started.append(label)
            if wait is not None:
                await wait.wait()

        return run

    queue.submit("runaway", job("runaway-1", slow_release))
    queue.submit("runaway", job("runaway-2"))
    queue.submit("runaway", job("runaway-3"))  # replaces runaway-2, which never starts
    for name in ("a", "b", "c"):
        queue.submit(name, job(name))
    await asyncio.sleep(0.05)
    # The runaway holds one slot; the other slot serves everybody else in turn.
    assert started == ["runaway-1", "a", "b", "c"]
    slow_release.set()
    await queue.drain()
    assert started[-1] == "runaway-3" and "runaway-2" not in started and queue.superseded == 1


class FakeClock:
    """The queue's clock, advanced by the test: who rests and who runs does not depend on the machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def timed_job(
    clock: FakeClock,
    started: list[tuple[str, float]],
    label: str,
    seconds: float = 0.0,
    wait: asyncio.Event | None = None,
):
    async def run():
        started.append((label, clock.now))
        clock.now += seconds  # the job's duration, on the queue's clock
        if wait is not None:
            await wait.wait()

    return run


async def test_a_client_whose_job_was_slow_rests_as_long_while_the_others_go_on():
    clock = FakeClock()
    queue = FairQueue(slots=2, slow_after=0.05, clock=clock)
    started: list[tuple[str, float]] = []
    queue.submit("runaway", timed_job(clock, started, "runaway-1", 0.2))
    await queue.drain()  # runaway-1 took 0.2 s: it now rests 0.2 s
    queue.submit("runaway", timed_job(clock, started, "runaway-2"))
    queue.submit("quick", timed_job(clock, started, "quick-1"))
    await asyncio.sleep(0)  # let started tasks run
    queue._dispatch()  # however late the loop is, the rest is not over on the queue's clock
    assert [label for label, _ in started] == ["runaway-1", "quick-1"]
    clock.now += 0.2  # the rest is over: the next dispatch (the timer set when runaway-1 ended, or any submit)
    queue._dispatch()  # starts runaway-2; called here so the test does not wait on the real timer
    await asyncio.wait_for(queue.drain(), 10)
    times = dict(started)
    assert [label for label, _ in started] == ["runaway-1", "quick-1", "runaway-2"]
    assert times["runaway-2"] - times["runaway-1"] >= 0.4  # 0.2 s of work, then as long at rest


async def test_a_slow_client_never_takes_the_last_free_slot():
    clock = FakeClock()
    queue = FairQueue(slots=2, slow_after=0.02, clock=clock)
    started: list[tuple[str, float]] = []
    hold = asyncio.Event()
    queue.submit("runaway", timed_job(clock, started, "runaway-1", 0.05))
    await queue.drain()  # slow: it rests, then may use a slot only while another stays free
    clock.now += 0.05  # the rest is over
    queue.submit("busy", timed_job(clock, started, "busy-1", wait=hold))  # holds one of the two slots
    queue.submit("runaway", timed_job(clock, started, "runaway-2"))
    await asyncio.sleep(0)
    queue._dispatch()
    assert [label for label, _ in started] == ["runaway-1", "busy-1"]  # only the last slot is free
    queue.submit("quick", timed_job(clock, started, "quick-1"))
    await asyncio.sleep(0)
    assert started[-1][0] == "quick-1"  # a quick client gets the slot the runaway may not take
    hold.set()
    await queue.drain()
    assert started[-1][0] == "runaway-2"


@pytest.mark.django_db
def test_progress_is_computed_from_the_checks_and_hidden_verdicts_wait_for_submit():
    room, _ = open_room()
    participant, _, _ = join(room["code"])
    ctx = progress.context(participant.id)
    result = engine.evaluate(ctx)
    views = progress.record(ctx, result["checks"], result["version"])
    assert views["teacher"]["total"] == 3 and views["teacher"]["passed"] == 2
    assert len(views["teacher"]["checks"]) == 3 and len(views["student"]["checks"]) == 2
    submitted = progress.record(
        progress.context(participant.id, submit=True), result["checks"], result["version"], submit=True
    )
    assert submitted["student"]["submitted"] and len(submitted["student"]["checks"]) == 3


@pytest.mark.django_db
def test_results_csv_lists_every_participant_and_exercise_and_defuses_formulas():
    room, token = open_room()
    participant, _, _ = join(room["code"], '=HYPERLINK("http://evil")')
    ctx = progress.context(participant.id)
    result = engine.evaluate(ctx)
    progress.record(ctx, result["checks"], result["version"])
    lines = export.results_csv(room["code"], token).splitlines()
    assert lines[0].startswith("participant,exercise,title,passed,total")
    assert len(lines) == 1 + 7
    assert lines[1].startswith("\"'=HYPERLINK") and ",1,A replica limit without params,2,3,no," in lines[1]
    with pytest.raises(ServiceError) as error:
        export.results_csv(room["code"], "wrong")
    assert error.value.status == 403


@pytest.mark.django_db
def test_a_socket_count_left_by_a_crash_does_not_keep_a_student_online():
    room, _ = open_room()
    ada, _, _ = join(room["code"])
    participants.connected(ada.id, 1)
    ada.refresh_from_db()
    assert participants.participant_summary(ada)["online"] is True
    # The server died: its sockets never counted out, and no sign of life came since.
    participants.Participant.objects.filter(pk=ada.id).update(
        seen=timezone.now() - participants.ONLINE_WITHIN - timedelta(seconds=1)
    )
    ada.refresh_from_db()
    assert ada.connections == 1 and participants.participant_summary(ada)["online"] is False
    participants.seen(ada.id)  # a ping from the reconnected page
    ada.refresh_from_db()
    assert participants.participant_summary(ada)["online"] is True
    for _ in range(3):
        participants.connected(ada.id, -1)
    ada.refresh_from_db()
    assert ada.connections == 0


@pytest.mark.django_db
def test_a_fork_is_private_per_participant_and_exercise():
    room, token = open_room()
    ada, _, _ = join(room["code"], "Ada")
    bob, _, _ = join(room["code"], "Bob")
    first = participants.student_state(ada)["fork"]["projectId"]
    assert participants.student_state(ada)["fork"]["projectId"] == first
    assert participants.student_state(bob)["fork"]["projectId"] != first
    rooms.advance(code=room["code"], token=token)
    assert participants.student_state(ada)["fork"]["projectId"] != first
