"""Project, document, request, snapshot, example and evaluation endpoints. Thin: services do the work.

A body is validated at the edge by its serializer (api/serializers.py, which the WebSocket messages reuse;
also the OpenAPI schema): a wrong type or an unknown or missing field is a 400 naming it, in the one error
shape. The services get validated values as keyword arguments and check what needs them (sizes, tokens).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.serializers import (
    DocumentInSerializer,
    ErrorSerializer,
    EvaluateInSerializer,
    ProjectInSerializer,
    ProjectPatchSerializer,
    RequestInSerializer,
    SnapshotRefSerializer,
)
from playground.api.strict import validated
from playground.api.throttles import EvaluationThrottle
from playground.core.database import release_connection
from playground.evaluation import jobs, pool
from playground.services import document_service, example_service, notify, project_service, snapshot_service
from playground.services.document_service import UNSET, Target
from playground.evaluation.live_jobs import documents_key
from playground.evaluation.service import named_texts

TOKEN_HEADER = OpenApiParameter(
    "X-Edit-Token",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="The edit token returned once when the project was created.",
)
LIST = {"type": "array", "items": {"type": "object"}}
ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer, 413: ErrorSerializer}


def _token(request) -> str | None:
    return request.headers.get("X-Edit-Token")


class ProjectCreateView(APIView):
    @extend_schema(request=ProjectInSerializer, responses={201: dict, **ERRORS})
    def post(self, request):
        body = validated(ProjectInSerializer, request.data)
        state, token = project_service.create_project(
            body.get("title", ""),
            body.get("description", ""),
            body.get("documents"),
            body.get("requests"),
            kubernetes_version=body.get("kubernetesVersion"),
        )
        return Response({**state, "editToken": token}, status=status.HTTP_201_CREATED)


class ProjectDetailView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, project_id):
        return Response(project_service.project_state(project_id))

    @extend_schema(request=ProjectPatchSerializer, parameters=[TOKEN_HEADER], responses={200: dict, **ERRORS})
    def patch(self, request, project_id):
        body = validated(ProjectPatchSerializer, request.data)
        state = project_service.update_metadata(
            project_id=project_id,
            token=_token(request),
            title=body.get("title"),
            description=body.get("description"),
            kubernetes_version=body.get("kubernetesVersion"),
        )
        notify.project_changed(project_id)
        return Response(state)


class ProjectTokenView(APIView):
    """Rotate the edit token: every earlier edit link stops working."""

    @extend_schema(request=None, parameters=[TOKEN_HEADER], responses={200: dict, **ERRORS})
    def post(self, request, project_id):
        return Response({"editToken": project_service.rotate_token(project_id, _token(request))})


class _ItemListView(APIView):
    target: Target = "document"
    body = DocumentInSerializer

    @extend_schema(request=None, parameters=[], responses={200: LIST, 404: ErrorSerializer})
    def get(self, request, project_id):
        state = project_service.project_state(project_id)
        return Response(state["documents" if self.target == "document" else "requests"])

    def post(self, request, project_id):
        body = validated(self.body, request.data)
        saved = document_service.add_item(
            project_id=project_id,
            token=_token(request),
            target=self.target,
            name=body.get("name"),
            text=body.get("text") or "",
            expected=body.get("expected"),
        )
        notify.project_changed(project_id)
        return Response({**saved["item"], "projectVersion": saved["version"]}, status=status.HTTP_201_CREATED)


class _ItemDetailView(APIView):
    target: Target = "document"
    body = DocumentInSerializer

    @extend_schema(request=None, parameters=[], responses={200: dict, 404: ErrorSerializer})
    def get(self, request, project_id, item_id):
        return Response(document_service.get_item(project_id=project_id, target=self.target, item_id=item_id))

    def put(self, request, project_id, item_id):
        body = validated(self.body, request.data)
        saved = document_service.update_item(
            project_id=project_id,
            token=_token(request),
            target=self.target,
            item_id=item_id,
            text=body.get("text"),
            name=body.get("name"),
            expected=body["expected"] if "expected" in body else UNSET,
        )
        notify.project_changed(project_id)
        return Response({**saved["item"], "projectVersion": saved["version"]})

    def delete(self, request, project_id, item_id):
        saved = document_service.delete_item(
            project_id=project_id, token=_token(request), target=self.target, item_id=item_id
        )
        notify.project_changed(project_id)
        return Response({"projectVersion": saved["version"]})


@extend_schema(request=DocumentInSerializer, parameters=[TOKEN_HEADER], responses={201: dict, **ERRORS})
class DocumentListView(_ItemListView):
    target = "document"


@extend_schema(request=DocumentInSerializer, responses={200: dict, **ERRORS})
class DocumentDetailView(_ItemDetailView):
    target = "document"


@extend_schema(request=RequestInSerializer, parameters=[TOKEN_HEADER], responses={201: dict, **ERRORS})
class RequestListView(_ItemListView):
    target = "request"
    body = RequestInSerializer


@extend_schema(request=RequestInSerializer, responses={200: dict, **ERRORS})
class RequestDetailView(_ItemDetailView):
    target = "request"
    body = RequestInSerializer


def _evaluate(
    documents: list[dict], requests: list[dict], version: int | None = None, kubernetes_version: str | None = None
) -> dict:
    """In the supervised workers, bounded like every evaluation; routed like the live room's (warm caches).
    The request's database connection goes back to the pool meanwhile: the workers need none."""
    release_connection()
    key = documents_key(named_texts(documents), kubernetes_version)
    return pool.call(jobs.evaluate_project, documents, requests, version, kubernetes_version, key=key)


class ProjectEvaluateView(APIView):
    throttle_classes = [EvaluationThrottle]

    @extend_schema(request=None, responses={200: dict, 404: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request, project_id):
        state = project_service.project_state(project_id)
        return Response(
            _evaluate(
                state["documents"], state["requests"], state["version"], kubernetes_version=state["kubernetesVersion"]
            )
        )


class EvaluateView(APIView):
    """Stateless: evaluate the documents and requests in the body."""

    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        request=EvaluateInSerializer,
        responses={200: dict, 400: ErrorSerializer, 413: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request):
        body = validated(EvaluateInSerializer, request.data)
        documents, requests = project_service.clean_contents(body.get("documents"), body.get("requests"))
        version = body.get("kubernetesVersion")
        version = project_service.clean_kubernetes_version(version) if version is not None else None
        return Response(_evaluate(documents, requests, kubernetes_version=version))


class ProjectSnapshotView(APIView):
    @extend_schema(request=None, responses={201: SnapshotRefSerializer, 404: ErrorSerializer})
    def post(self, request, project_id):
        return Response(snapshot_service.create_snapshot(project_id=project_id), status=status.HTTP_201_CREATED)


class SnapshotDetailView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, snapshot_id):
        return Response(snapshot_service.get_snapshot(snapshot_id_=snapshot_id))


class SnapshotForkView(APIView):
    @extend_schema(request=None, responses={201: dict, 404: ErrorSerializer})
    def post(self, request, snapshot_id):
        state, token = snapshot_service.fork_snapshot(snapshot_id_=snapshot_id)
        return Response({**state, "editToken": token}, status=status.HTTP_201_CREATED)


class ExampleListView(APIView):
    @extend_schema(responses={200: LIST})
    def get(self, request):
        return Response(example_service.list_examples())


class ExampleDetailView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, slug):
        return Response(example_service.get_example(slug=slug))


class ExampleForkView(APIView):
    @extend_schema(request=None, responses={201: dict, 404: ErrorSerializer})
    def post(self, request, slug):
        state, token = example_service.fork_example(slug=slug)
        return Response({**state, "editToken": token}, status=status.HTTP_201_CREATED)
