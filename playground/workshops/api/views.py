"""Workshop REST endpoints under /api/v1/workshops/. Thin: services do the work, errors use the one shape.

Teacher calls carry the room's teacher token (X-Teacher-Token), student calls the browser token
(X-Participant-Token); both are returned once, when the room is opened or joined.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.serializers import ErrorSerializer
from playground.api.strict import validated
from playground.workshops.api import serializers as s
from playground.workshops.services import authoring, catalog, export, participants, progress, rooms
from playground.workshops.services.groups import tell_room

TEACHER = OpenApiParameter(
    "X-Teacher-Token",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="The teacher token returned once when the room was opened.",
)
STUDENT = OpenApiParameter(
    "X-Participant-Token",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="The browser token returned once when joining.",
)
ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}


def _teacher_token(request) -> str | None:
    return request.headers.get("X-Teacher-Token")


class SetListView(APIView):
    @extend_schema(operation_id="workshops_sets_list", responses={200: {"type": "array", "items": {"type": "object"}}})
    def get(self, request):
        return Response(catalog.list_sets())


class SetDetailView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, slug):
        exercise_set = catalog.get_set(slug)
        return Response(
            {
                "slug": exercise_set.slug,
                "title": exercise_set.title,
                "description": exercise_set.description,
                "exercises": [catalog.student_view(e) for e in exercise_set.exercises.all()],
            }
        )


class SetExportView(APIView):
    @extend_schema(responses={(200, "application/yaml"): str, 404: ErrorSerializer})
    def get(self, request, slug):
        response = HttpResponse(authoring.export_set(slug), content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{slug}.yaml"'
        return response


class SetSourceView(APIView):
    """The set file's content as JSON, for the authoring page ("edit a copy")."""

    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, slug):
        return Response(authoring.set_file(slug))


class SetImportView(APIView):
    @extend_schema(request=s.SetImportInSerializer, responses={201: dict, **ERRORS})
    def post(self, request):
        exercise_set = authoring.import_set(text=validated(s.SetImportInSerializer, request.data)["yaml"])
        return Response(
            {"slug": exercise_set.slug, "title": exercise_set.title, "exercises": exercise_set.exercises.count()},
            status=status.HTTP_201_CREATED,
        )


class SetComposeView(APIView):
    """The authoring page: a set as JSON (the file's fields) → its YAML file and whether an import takes it."""

    @extend_schema(request=s.SetComposeInSerializer, responses={200: dict, 400: ErrorSerializer})
    def post(self, request):
        return Response(authoring.compose(data=validated(s.SetComposeInSerializer, request.data)["set"]))


class RoomCreateView(APIView):
    @extend_schema(request=s.RoomInSerializer, responses={201: dict, **ERRORS})
    def post(self, request):
        body = validated(s.RoomInSerializer, request.data)
        room, token = rooms.create_room(set_slug=body["set"], title=body.get("title") or "")
        return Response({**room, "teacherToken": token}, status=status.HTTP_201_CREATED)


class RoomDetailView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, code):
        return Response(rooms.room_public(rooms.get_room(code)))


class JoinView(APIView):
    @extend_schema(request=s.JoinInSerializer, responses={200: dict, 201: dict, **ERRORS})
    def post(self, request, code):
        body = validated(s.JoinInSerializer, request.data)
        participant, token, resumed = participants.join(
            code=code, display_name=body.get("displayName"), token=body.get("token")
        )
        state = participants.student_state(participant)
        return Response(
            {**state, "token": token, "resumed": resumed},
            status=status.HTTP_200_OK if resumed else status.HTTP_201_CREATED,
        )


class MeView(APIView):
    @extend_schema(parameters=[STUDENT], responses={200: dict, **ERRORS})
    def get(self, request, code):
        participant = participants.get_participant(code, request.headers.get("X-Participant-Token"))
        return Response(participants.student_state(participant))


class DashboardView(APIView):
    @extend_schema(parameters=[TEACHER], responses={200: dict, **ERRORS})
    def get(self, request, code):
        rooms.teacher_room(code, _teacher_token(request), open_only=False)
        return Response(progress.dashboard(code))


class _TeacherAction(APIView):
    """POST: do the action, tell the room's sockets, answer what was sent. The body is validated by
    `body` (the serializer the teacher socket's message of the same action extends)."""

    body: type[serializers.Serializer] = serializers.Serializer  # no fields: an empty object

    def act(self, code: str, token: str | None, body: dict) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    @extend_schema(parameters=[TEACHER], responses={200: dict, **ERRORS})
    def post(self, request, code):
        room = rooms.get_room(code)
        message = self.act(room.code, _teacher_token(request), validated(self.body, request.data))
        tell_room(room.code, message)
        return Response(message)


@extend_schema(request=s.AdvanceInSerializer)
class AdvanceView(_TeacherAction):
    body = s.AdvanceInSerializer

    def act(self, code, token, body):
        return {"type": "exercise", "room": rooms.advance(code=code, token=token, position=body.get("position"))}


@extend_schema(request=None)
class HintView(_TeacherAction):
    def act(self, code, token, body):
        return {"type": "hint", **rooms.reveal_hint(code=code, token=token)}


@extend_schema(request=None)
class SolutionView(_TeacherAction):
    def act(self, code, token, body):
        return {"type": "solution", **rooms.reveal_solution(code=code, token=token)}


@extend_schema(request=s.AnnounceInSerializer)
class AnnounceView(_TeacherAction):
    body = s.AnnounceInSerializer

    def act(self, code, token, body):
        return {"type": "announcement", **rooms.announce(code=code, token=token, text=body["text"])}


@extend_schema(request=s.PresentInSerializer)
class PresentView(_TeacherAction):
    body = s.PresentInSerializer

    def act(self, code, token, body):
        presenting = rooms.present(code=code, token=token, documents=body.get("documents"), title=body.get("title"))
        return {"type": "presenting", "presenting": presenting}


@extend_schema(request=s.TimeBoxInSerializer)
class TimeBoxView(_TeacherAction):
    body = s.TimeBoxInSerializer

    def act(self, code, token, body):
        box = rooms.set_time_box(code=code, token=token, minutes=body["minutes"], locks=body.get("locks", False))
        return {"type": "timeBox", "timeBox": box}


class CoteacherLinkView(APIView):
    """POST (the owner's teacher token): a new co-teacher token; the link built from it replaces the last."""

    @extend_schema(parameters=[TEACHER], request=None, responses={201: dict, **ERRORS})
    def post(self, request, code):
        token = rooms.coteacher_link(code, _teacher_token(request))
        room = rooms.get_room(code)
        return Response({"token": token, "dashboardUrl": f"/w/{room.code}/teacher"}, status=status.HTTP_201_CREATED)


@extend_schema(request=None)
class CloseView(_TeacherAction):
    def act(self, code, token, body):
        return {"type": "closed", "room": rooms.close(code=code, token=token)}


class ResultsCSVView(APIView):
    @extend_schema(parameters=[TEACHER], responses={(200, "text/csv"): str, **ERRORS})
    def get(self, request, code):
        text = export.results_csv(code, _teacher_token(request))
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="workshop-{rooms.normalise_code(code)}.csv"'
        return response
