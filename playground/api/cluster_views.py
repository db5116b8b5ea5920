"""Load from a connected cluster (issue 37): status, counts, load into a project, refresh, sample requests.
Thin: playground/services/cluster_service.py does the work."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.project_views import ERRORS, TOKEN_HEADER, _token
from playground.api.serializers import (
    ClusterRefreshSerializer,
    ClusterSampleRequestSerializer,
    ClusterSelectionSerializer,
    ErrorSerializer,
)
from playground.api.strict import validated
from playground.services import cluster_service, notify

CLUSTER_ERRORS = {**ERRORS, 502: ErrorSerializer}


class ClusterStatusView(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response(cluster_service.status())


class ClusterCountView(APIView):
    """How many objects a load would read, per kind, before reading them."""

    @extend_schema(request=ClusterSelectionSerializer, responses={200: dict, **CLUSTER_ERRORS})
    def post(self, request):
        selection = cluster_service.selection_of(validated(ClusterSelectionSerializer, request.data))
        return Response(cluster_service.preview(selection))


class ClusterLoadView(APIView):
    @extend_schema(
        request=ClusterSelectionSerializer, parameters=[TOKEN_HEADER], responses={200: dict, **CLUSTER_ERRORS}
    )
    def post(self, request, project_id):
        selection = cluster_service.selection_of(validated(ClusterSelectionSerializer, request.data))
        saved = cluster_service.load_into(project_id=project_id, token=_token(request), selection=selection)
        notify.project_changed(project_id)
        return Response(saved)


class ClusterRefreshView(APIView):
    @extend_schema(request=ClusterRefreshSerializer, parameters=[TOKEN_HEADER], responses={200: dict, **CLUSTER_ERRORS})
    def post(self, request, project_id):
        body = validated(ClusterRefreshSerializer, request.data)
        saved = cluster_service.refresh(
            project_id=project_id, token=_token(request), document_ids=body.get("documentIds")
        )
        notify.project_changed(project_id)
        return Response(saved)


class ClusterSampleRequestView(APIView):
    @extend_schema(
        request=ClusterSampleRequestSerializer, parameters=[TOKEN_HEADER], responses={201: dict, **CLUSTER_ERRORS}
    )
    def post(self, request, project_id):
        body = validated(ClusterSampleRequestSerializer, request.data)
        saved = cluster_service.sample_request_from(
            project_id=project_id,
            token=_token(request),
            operation=body["operation"],
            document_id=body.get("documentId"),
            ref=dict(body["object"]) if body.get("object") else None,
        )
        notify.project_changed(project_id)
        return Response({**saved["item"], "projectVersion": saved["version"]}, status=status.HTTP_201_CREATED)
