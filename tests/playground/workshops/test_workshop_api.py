"""The workshop REST API: sets, rooms, joins and resume, teacher actions, CSV, the one error shape."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

API = "/api/v1/workshops"


@pytest.fixture
def client():
    return APIClient()


def _open(client) -> dict:
    response = client.post(f"{API}/rooms", {"set": "admission-basics", "title": "Class A"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_sets_list_the_shipped_set_without_solutions_or_hidden_checks(client):
    listed = client.get(f"{API}/sets").json()
    assert [s["slug"] for s in listed] == ["admission-basics"] and len(listed[0]["exercises"]) == 7
    detail = client.get(f"{API}/sets/admission-basics").json()
    first = detail["exercises"][0]
    assert first["solution"] is None and first["hiddenChecks"] == 1 and len(first["checks"]) == 2
    assert "<strong>at most 5 replicas</strong>" in first["taskHtml"]
    assert all(e["solution"] is None and e["hints"] == [] for e in detail["exercises"])
    assert "solution" not in str([c for e in detail["exercises"] for c in e["checks"]])
    assert client.get(f"{API}/sets/nope").json()["error"]["code"] == "not_found"


def test_open_a_room_and_join_with_a_display_name(client):
    room = _open(client)
    assert len(room["code"]) == 6 and room["teacherToken"] and room["joinUrl"] == f"/w/{room['code']}"
    assert room["position"] == 0 and room["exerciseCount"] == 7
    public = client.get(f"{API}/rooms/{room['code'].lower()}").json()
    assert public["code"] == room["code"] and "teacherToken" not in public
    joined = client.post(f"{API}/rooms/{room['code']}/join", {"displayName": "  Ada   Lovelace "}, format="json")
    assert joined.status_code == 201
    body = joined.json()
    assert body["participant"]["name"] == "Ada Lovelace" and body["token"] and body["resumed"] is False
    assert body["exercise"]["position"] == 0 and body["fork"]["editToken"]
    assert [d["name"] for d in body["fork"]["project"]["documents"]][0].startswith("policy")
    assert 'expression: "true"' in body["fork"]["project"]["documents"][0]["text"]


def test_the_browser_token_resumes_the_same_participant_and_fork(client):
    room = _open(client)
    first = client.post(f"{API}/rooms/{room['code']}/join", {"displayName": "Ada"}, format="json").json()
    again = client.post(
        f"{API}/rooms/{room['code']}/join", {"displayName": "Ada", "token": first["token"]}, format="json"
    )
    assert again.status_code == 200 and again.json()["resumed"] is True
    assert again.json()["fork"]["projectId"] == first["fork"]["projectId"]
    me = client.get(f"{API}/rooms/{room['code']}/me", HTTP_X_PARTICIPANT_TOKEN=first["token"])
    assert me.json()["participant"]["id"] == first["participant"]["id"]
    assert client.get(f"{API}/rooms/{room['code']}/me", HTTP_X_PARTICIPANT_TOKEN="nope").status_code == 403


def test_teacher_actions_need_the_teacher_token(client):
    room = _open(client)
    code, token = room["code"], room["teacherToken"]
    for action in ("advance", "hints", "solution", "close"):
        response = client.post(f"{API}/rooms/{code}/{action}", {}, format="json", HTTP_X_TEACHER_TOKEN="wrong")
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert client.get(f"{API}/rooms/{code}/dashboard").status_code == 403
    hint = client.post(f"{API}/rooms/{code}/hints", {}, format="json", HTTP_X_TEACHER_TOKEN=token).json()
    assert hint["type"] == "hint" and hint["index"] == 0 and "<code>object</code>" in hint["html"]
    client.post(f"{API}/rooms/{code}/hints", {}, format="json", HTTP_X_TEACHER_TOKEN=token)
    third = client.post(f"{API}/rooms/{code}/hints", {}, format="json", HTTP_X_TEACHER_TOKEN=token)
    assert third.status_code == 409 and third.json()["error"]["code"] == "no_more_hints"
    solution = client.post(f"{API}/rooms/{code}/solution", {}, format="json", HTTP_X_TEACHER_TOKEN=token).json()
    assert "object.spec.replicas <= 5" in solution["documents"][0]["text"]
    advanced = client.post(f"{API}/rooms/{code}/advance", {}, format="json", HTTP_X_TEACHER_TOKEN=token).json()
    assert advanced["room"]["position"] == 1
    bad = client.post(f"{API}/rooms/{code}/advance", {"position": 7}, format="json", HTTP_X_TEACHER_TOKEN=token)
    assert bad.status_code == 400
    dashboard = client.get(f"{API}/rooms/{code}/dashboard", HTTP_X_TEACHER_TOKEN=token).json()
    assert dashboard["room"]["position"] == 1 and dashboard["exercises"][0]["hintsShown"] == 2
    assert dashboard["exercises"][0]["solutionShown"] is True


def test_a_student_sees_revealed_hints_and_solution_only(client):
    room = _open(client)
    code, token = room["code"], room["teacherToken"]
    joined = client.post(f"{API}/rooms/{code}/join", {"displayName": "Ada"}, format="json").json()
    assert joined["exercise"]["hints"] == [] and joined["exercise"]["hintCount"] == 2
    client.post(f"{API}/rooms/{code}/hints", {}, format="json", HTTP_X_TEACHER_TOKEN=token)
    me = client.get(f"{API}/rooms/{code}/me", HTTP_X_PARTICIPANT_TOKEN=joined["token"]).json()
    assert len(me["exercise"]["hints"]) == 1 and me["exercise"]["solution"] is None
    client.post(f"{API}/rooms/{code}/solution", {}, format="json", HTTP_X_TEACHER_TOKEN=token)
    me = client.get(f"{API}/rooms/{code}/me", HTTP_X_PARTICIPANT_TOKEN=joined["token"]).json()
    assert "object.spec.replicas <= 5" in me["exercise"]["solution"][0]["text"]


def test_closed_rooms_take_no_new_participants_but_export_results(client):
    room = _open(client)
    code, token = room["code"], room["teacherToken"]
    client.post(f"{API}/rooms/{code}/join", {"displayName": "Ada"}, format="json")
    assert client.post(f"{API}/rooms/{code}/close", {}, format="json", HTTP_X_TEACHER_TOKEN=token).status_code == 200
    late = client.post(f"{API}/rooms/{code}/join", {"displayName": "Bob"}, format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "room_closed"
    assert client.post(f"{API}/rooms/{code}/advance", {}, format="json", HTTP_X_TEACHER_TOKEN=token).status_code == 409
    assert client.get(f"{API}/rooms/{code}/results.csv?token={token}").status_code == 403  # never in a URL
    csv = client.get(f"{API}/rooms/{code}/results.csv", HTTP_X_TEACHER_TOKEN=token)
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    assert csv.content.decode().count("\nAda,") == 7


def test_bad_input_gets_the_error_shape(client):
    assert client.post(f"{API}/rooms", {"set": "missing"}, format="json").status_code == 404
    room = _open(client)
    response = client.post(f"{API}/rooms/{room['code']}/join", {"displayName": ""}, format="json")
    assert response.status_code == 400 and response.json()["error"]["path"] == "displayName"
    response = client.post(f"{API}/rooms/{room['code']}/join", ["x"], format="json")
    assert response.status_code == 400
    assert client.get(f"{API}/rooms/ZZZZZZ").status_code == 404


def test_pages_render_with_page_data(client):
    room = _open(client)
    assert b"admission-basics" in client.get("/workshops").content
    student = client.get(f"/w/{room['code']}")
    assert student.status_code == 200 and b'id="page-data"' in student.content
    assert room["teacherToken"].encode() not in client.get(f"/w/{room['code']}/teacher").content
    assert client.get("/w/NOPE99").status_code == 404


def test_a_students_fork_refuses_writes_through_the_project_api_once_the_room_is_closed(client):
    room = _open(client)
    code, token = room["code"], room["teacherToken"]
    joined = client.post(f"{API}/rooms/{code}/join", {"displayName": "Ada"}, format="json").json()
    fork = joined["fork"]
    document = fork["project"]["documents"][0]
    url = f"/api/v1/projects/{fork['projectId']}/documents/{document['id']}"
    before = client.put(
        url, {"text": document["text"] + "\n# mine"}, format="json", HTTP_X_EDIT_TOKEN=fork["editToken"]
    )
    assert before.status_code == 200, before.json()
    assert client.post(f"{API}/rooms/{code}/close", {}, format="json", HTTP_X_TEACHER_TOKEN=token).status_code == 200
    after = client.put(url, {"text": "kind: Pod"}, format="json", HTTP_X_EDIT_TOKEN=fork["editToken"])
    assert after.status_code == 403, after.json()
    kept = client.get(f"/api/v1/projects/{fork['projectId']}").json()
    assert kept["documents"][0]["text"].endswith("# mine")  # still readable, unchanged
    # Resuming after the close shows the same work, still read-only.
    resumed = client.post(f"{API}/rooms/{code}/join", {"displayName": "Ada", "token": joined["token"]}, format="json")
    assert resumed.status_code == 200 and resumed.json()["room"]["state"] == "closed"


def test_two_students_with_one_name_are_told_apart(client):
    code = _open(client)["code"]
    names = [
        client.post(f"{API}/rooms/{code}/join", {"displayName": name}, format="json").json()["participant"]["name"]
        for name in ("Ada", "ada", "Ada", "Bob")
    ]
    assert names == ["Ada", "ada (2)", "Ada (3)", "Bob"]


def test_next_on_the_last_exercise_says_to_finish_and_previous_goes_back(client):
    room = _open(client)
    code, token = room["code"], room["teacherToken"]
    last = client.post(f"{API}/rooms/{code}/advance", {"position": 6}, format="json", HTTP_X_TEACHER_TOKEN=token)
    assert last.json()["room"]["position"] == 6
    beyond = client.post(f"{API}/rooms/{code}/advance", {}, format="json", HTTP_X_TEACHER_TOKEN=token)
    assert beyond.status_code == 409 and beyond.json()["error"]["code"] == "last_exercise"
    assert "finish" in beyond.json()["error"]["message"]
    back = client.post(f"{API}/rooms/{code}/advance", {"position": 5}, format="json", HTTP_X_TEACHER_TOKEN=token)
    assert back.json()["room"]["position"] == 5
