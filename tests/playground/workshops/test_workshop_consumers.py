"""Workshop rooms over WebSocket (channels' WebsocketCommunicator against the real ASGI application):
joins, live progress on the teacher's dashboard, watching, presenter mode, advancing, closing, restart/resume."""

import asyncio
from pathlib import Path

import pytest
from channels.layers import get_channel_layer

from playground.evaluation import service as evaluation_service
from playground.workshops.services import fair_queue
from tests.playground.workshops.workshop_fixtures import (
    FIXED_EXPRESSION,
    STARTER_EXPRESSION,
    TIMEOUT,
    async_join,
    async_open_room,
    connect,
    policy_document,
    receive_until,
    student_socket,
    teacher_socket,
)

pytestmark = pytest.mark.django_db(transaction=True)


def fixed(text: str) -> str:
    assert STARTER_EXPRESSION in text
    return text.replace(STARTER_EXPRESSION, FIXED_EXPRESSION)


async def edit(ws, document: dict, text: str, seq: int = 1) -> dict:
    await ws.send_json_to({"type": "edit", "target": "document", "id": document["id"], "text": text, "clientSeq": seq})
    return await receive_until(ws, "ack", lambda m: m["clientSeq"] == seq)


async def test_the_teachers_dashboard_turns_green_when_the_student_fixes_the_policy():
    room, teacher_token = await async_open_room()
    ada, ada_token, _ = await async_join(room["code"], "Ada")
    teacher, dashboard = await teacher_socket(room["code"], teacher_token)
    assert [p["name"] for p in dashboard["participants"]] == ["Ada"] and len(dashboard["exercises"]) == 7
    assert "replicas <= 5" in dashboard["exercises"][0]["solution"][0]["text"]
    student, welcome = await student_socket(room["code"], ada_token)
    assert welcome["exercise"]["position"] == 0 and welcome["exercise"]["solution"] is None
    first = await receive_until(student, "evaluation")
    # The student's count is of the checks shown: the hidden one waits for submit (it passes, unseen).
    assert first["progress"]["passed"] == 1 and first["progress"]["total"] == 2
    assert first["progress"]["hiddenPending"] == 1
    assert [c["verdict"] for c in first["checks"]] == ["fail", "pass"]  # the hidden check is not shown yet
    progress = await receive_until(teacher, "progress")
    assert progress["participant"] == ada.id and progress["passed"] == 2 and progress["complete"] is False
    assert len(progress["checks"]) == 3  # the teacher sees the hidden check too

    ack = await edit(student, policy_document(welcome), fixed(policy_document(welcome)["text"]))
    assert ack["version"] > welcome["fork"]["project"]["version"]
    result = await receive_until(student, "evaluation", lambda m: m["version"] == ack["version"])
    assert [c["verdict"] for c in result["checks"]] == ["pass", "pass"] and result["progress"]["complete"] is True
    green = await receive_until(teacher, "progress", lambda m: m["complete"])
    assert green["passed"] == green["total"] == 3 and green["lastActivity"]
    await student.disconnect()
    await teacher.disconnect()


async def test_submit_reveals_the_hidden_checks_to_the_student():
    room, _ = await async_open_room()
    _, token, _ = await async_join(room["code"])
    student, _ = await student_socket(room["code"], token)
    await receive_until(student, "evaluation")
    await student.send_json_to({"type": "submit"})
    submitted = await receive_until(student, "evaluation", lambda m: m["progress"]["submitted"])
    assert len(submitted["checks"]) == 3 and submitted["checks"][2]["hidden"] is True
    assert submitted["progress"]["total"] == 3 and submitted["progress"]["hiddenPending"] == 0
    await student.disconnect()


async def test_teacher_watches_a_student_read_only():
    room, teacher_token = await async_open_room()
    ada, ada_token, _ = await async_join(room["code"], "Ada")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    student, welcome = await student_socket(room["code"], ada_token)
    await teacher.send_json_to({"type": "watch", "participant": ada.id})
    watching = await receive_until(teacher, "watching")
    assert watching["project"]["id"] == welcome["fork"]["projectId"] and "editToken" not in str(watching)
    await edit(student, policy_document(welcome), "# half typed")
    edited = await receive_until(teacher, "studentEdited")
    assert edited["participant"] == ada.id and edited["text"] == "# half typed"
    await teacher.send_json_to({"type": "watch", "participant": 999999})
    assert (await receive_until(teacher, "error"))["error"]["code"] == "not_found"
    await student.disconnect()
    await teacher.disconnect()


async def test_presenter_mode_announcements_hints_and_solution_reach_every_student():
    room, teacher_token = await async_open_room()
    _, ada_token, _ = await async_join(room["code"], "Ada")
    _, bob_token, _ = await async_join(room["code"], "Bob")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    ada, _ = await student_socket(room["code"], ada_token)
    bob, _ = await student_socket(room["code"], bob_token)
    await teacher.send_json_to({"type": "present", "title": "Look", "documents": [{"name": "mine", "text": "a: 1"}]})
    for student in (ada, bob):
        shown = await receive_until(student, "presenting")
        assert shown["presenting"] == {"title": "Look", "documents": [{"name": "mine", "text": "a: 1"}]}
    await teacher.send_json_to({"type": "announce", "text": "<b>5 minutes</b> left"})
    for student in (ada, bob):
        assert (await receive_until(student, "announcement"))["text"] == "<b>5 minutes</b> left"
    await teacher.send_json_to({"type": "revealHint"})
    hint = await receive_until(ada, "hint")
    assert hint["index"] == 0 and "<code>object</code>" in hint["html"]
    await teacher.send_json_to({"type": "revealSolution"})
    solution = await receive_until(bob, "solution")
    assert "object.spec.replicas <= 5" in solution["documents"][0]["text"]
    # A student who connects later gets what is shared in the welcome.
    await bob.disconnect()
    bob, welcome = await student_socket(room["code"], bob_token)
    assert welcome["room"]["presenting"]["documents"][0]["text"] == "a: 1"
    assert welcome["room"]["announcement"] == "<b>5 minutes</b> left"
    assert len(welcome["exercise"]["hints"]) == 1 and welcome["exercise"]["solution"]
    await teacher.send_json_to({"type": "present", "documents": None})
    assert (await receive_until(ada, "presenting"))["presenting"] is None
    for ws in (ada, bob, teacher):
        await ws.disconnect()


async def test_advancing_gives_each_student_a_fork_of_the_next_exercise():
    room, teacher_token = await async_open_room()
    _, ada_token, _ = await async_join(room["code"], "Ada")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    student, welcome = await student_socket(room["code"], ada_token)
    await teacher.send_json_to({"type": "advance"})
    moved = await receive_until(student, "exercise")
    assert moved["exercise"]["position"] == 1 and moved["fork"]["projectId"] != welcome["fork"]["projectId"]
    assert any("warn binding" == d["name"] for d in moved["fork"]["project"]["documents"])
    dashboard = await receive_until(teacher, "dashboard")
    assert dashboard["room"]["position"] == 1
    evaluation = await receive_until(student, "evaluation", lambda m: m["exercise"] == moved["exercise"]["id"])
    # Four checks, one hidden until submit: the student counts the three shown.
    assert evaluation["progress"]["total"] == 3 and evaluation["progress"]["hiddenPending"] == 1
    await student.disconnect()
    await teacher.disconnect()


async def test_a_closed_room_refuses_edits_and_wrong_tokens_are_refused():
    room, teacher_token = await async_open_room()
    _, ada_token, _ = await async_join(room["code"], "Ada")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    student, welcome = await student_socket(room["code"], ada_token)
    await teacher.send_json_to({"type": "close"})
    assert (await receive_until(student, "closed"))["room"]["state"] == "closed"
    await student.send_json_to(
        {"type": "edit", "target": "document", "id": policy_document(welcome)["id"], "text": "x", "clientSeq": 5}
    )
    refused = await receive_until(student, "error")
    assert refused["error"]["code"] == "room_closed" and refused["clientSeq"] == 5
    await teacher.send_json_to({"type": "advance"})
    assert (await receive_until(teacher, "error"))["error"]["code"] == "room_closed"
    wrong = await connect(f"/ws/rooms/{room['code']}/student/")
    await wrong.send_json_to({"type": "hello", "token": "wrong"})
    assert (await wrong.receive_json_from(timeout=TIMEOUT))["error"]["code"] == "forbidden"
    assert (await wrong.receive_output(timeout=TIMEOUT))["code"] == 4403
    gone = await connect("/ws/rooms/NOSUCH/student/")
    assert (await gone.receive_json_from(timeout=TIMEOUT))["type"] == "error"
    assert (await gone.receive_output(timeout=TIMEOUT))["code"] == 4404
    await student.disconnect()
    await teacher.disconnect()


async def test_bad_messages_get_errors_not_a_dropped_connection():
    room, teacher_token = await async_open_room()
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    await teacher.send_to(text_data="{nope")
    assert (await receive_until(teacher, "error"))["error"]["code"] == "invalid_json"
    await teacher.send_json_to({"type": "dance"})
    assert (await receive_until(teacher, "error"))["error"]["code"] == "invalid_message"
    await teacher.send_json_to({"type": "present", "documents": "nope"})
    error = (await receive_until(teacher, "error"))["error"]
    assert (error["code"], error["path"]) == ("invalid_message", "documents")
    await teacher.send_json_to({"type": "hello"})
    assert (await receive_until(teacher, "dashboard"))["room"]["code"] == room["code"]
    _, token, _ = await async_join(room["code"])
    student, _ = await student_socket(room["code"], token)
    await student.send_json_to({"type": "ping"})
    await receive_until(student, "pong")
    await student.send_json_to({"type": "advance"})  # a teacher's message from a student socket
    assert (await receive_until(student, "error"))["error"]["code"] == "invalid_message"
    await student.disconnect()
    await teacher.disconnect()


async def test_a_restarted_server_resumes_the_room_by_token():
    room, teacher_token = await async_open_room()
    ada, ada_token, _ = await async_join(room["code"], "Ada")
    student, welcome = await student_socket(room["code"], ada_token)
    text = fixed(policy_document(welcome)["text"])
    ack = await edit(student, policy_document(welcome), text)
    await receive_until(student, "evaluation", lambda m: m["version"] == ack["version"])
    await student.disconnect()

    # "Restart": nothing in process memory survives: queues, caches, channel-layer groups.
    fair_queue.reset()
    evaluation_service.clear_caches()
    layer = get_channel_layer()
    if hasattr(layer, "flush"):
        await layer.flush()

    teacher, dashboard = await teacher_socket(room["code"], teacher_token)
    [row] = dashboard["participants"]
    first_exercise = str(dashboard["exercises"][0]["id"])
    assert row["id"] == ada.id and row["progress"][first_exercise]["complete"] is True
    assert row["online"] is False
    student, again = await student_socket(room["code"], ada_token)
    assert again["fork"]["projectId"] == welcome["fork"]["projectId"]
    assert policy_document(again)["text"] == text and again["progress"]["complete"] is True
    online = await receive_until(teacher, "participant")
    assert online["id"] == ada.id and online["online"] is True
    await receive_until(teacher, "progress", lambda m: m["complete"])  # live again after the restart
    await student.disconnect()
    offline = await receive_until(teacher, "participant")
    assert offline["online"] is False
    await teacher.disconnect()


async def test_many_students_each_get_their_own_results():
    room, teacher_token = await async_open_room()
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    students = []
    for name in ("A", "B", "C", "D", "E", "F"):
        participant, token, _ = await async_join(room["code"], name)
        ws, welcome = await student_socket(room["code"], token)
        students.append((participant, ws, welcome))
    for index, (_, ws, welcome) in enumerate(students):
        text = policy_document(welcome)["text"]
        await edit(ws, policy_document(welcome), fixed(text) if index % 2 == 0 else text + "\n# still wrong\n")
    expected = {participant.id: index % 2 == 0 for index, (participant, _, _) in enumerate(students)}
    seen = {}
    async with asyncio.timeout(TIMEOUT * 2):  # a wrong verdict never converges: the timeout fails the test
        while seen != expected:
            message = await receive_until(teacher, "progress")
            seen[message["participant"]] = message["complete"]
    assert seen == expected
    for _, ws, _ in students:
        await ws.disconnect()
    await teacher.disconnect()


async def test_the_teacher_socket_takes_its_token_in_the_first_message_never_in_the_url():
    room, teacher_token = await async_open_room()
    ws = await connect(f"/ws/rooms/{room['code']}/teacher/?token={teacher_token}")  # a token in the URL is ignored
    await ws.send_json_to({"type": "announce", "text": "hi"})  # nothing but hello before the token
    assert (await ws.receive_json_from(timeout=TIMEOUT))["error"]["code"] == "forbidden"
    await ws.send_json_to({"type": "hello", "token": teacher_token})
    assert (await ws.receive_json_from(timeout=TIMEOUT))["type"] == "dashboard"
    await ws.disconnect()
    wrong = await connect(f"/ws/rooms/{room['code']}/teacher/")
    await wrong.send_json_to({"type": "hello", "token": "wrong"})
    assert (await wrong.receive_json_from(timeout=TIMEOUT))["error"]["code"] == "forbidden"
    assert (await wrong.receive_output(timeout=TIMEOUT))["code"] == 4403


async def test_the_student_socket_takes_its_token_in_the_first_message_never_in_the_url():
    room, _ = await async_open_room()
    _, token, _ = await async_join(room["code"], "Ada")
    ws = await connect(f"/ws/rooms/{room['code']}/student/?token={token}")  # a token in the URL is ignored
    await ws.send_json_to({"type": "ping"})  # nothing but hello before the token
    refused = await ws.receive_json_from(timeout=TIMEOUT)
    assert refused["error"]["code"] == "forbidden" and "hello" in refused["error"]["message"]
    await ws.send_json_to({"type": "hello", "token": token})
    assert (await ws.receive_json_from(timeout=TIMEOUT))["type"] == "welcome"
    await ws.disconnect()
    empty = await connect(f"/ws/rooms/{room['code']}/student/")
    await empty.send_json_to({"type": "hello"})
    assert (await empty.receive_json_from(timeout=TIMEOUT))["error"]["code"] == "forbidden"
    assert (await empty.receive_output(timeout=TIMEOUT))["code"] == 4403


def test_no_workshop_page_puts_a_token_in_a_websocket_url():
    """The pages open every socket on a bare path and send the token in `hello` (static/src/workshop-*.js)."""
    scripts = sorted((Path(__file__).resolve().parents[3] / "static" / "src").glob("workshop-*.js"))
    assert len(scripts) >= 3
    for script in scripts:
        text = script.read_text()
        assert "?token=" not in text and "query:" not in text, script.name
        assert "token=${" not in text.replace("#token=${", ""), script.name  # only in a link's fragment
