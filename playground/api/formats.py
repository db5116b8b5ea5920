"""Import and export endpoints (issue 19): thin wrappers over the engine-side converters (evaluator/formats).

POST /api/v1/import/<format>: the upload (raw body, or multipart field `file`) becomes a new project;
201 with the project, its edit token and the converter's warnings.
GET /api/v1/projects/<id>/export/<format>[?request=<request id>]: the project (or only that sample request
with the documents) as a download (X-Export-Warnings says what was left out). Exports run in the supervised
evaluation workers: some run the engine (kyverno-test rows, AdmissionReviews).
"""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.formats.bounded_yaml import FormatError
from evaluator.format_registry import FORMATS
from playground.api.serializers import ErrorSerializer
from playground.api.throttles import EvaluationThrottle
from playground.evaluation import jobs, pool
from playground.services import project_service
from playground.core.errors import ServiceError


def _limit() -> int:
    return int(settings.PLAYGROUND_MAX_PROJECT_BYTES)


class RawUploadParser(BaseParser):
    """Any other body (zip, tar, YAML, JSON) as bytes, bounded."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        data = stream.read(_limit() + 1) if stream is not None else b""
        if len(data) > _limit():
            raise ServiceError("too_large", f"the upload is larger than {_limit()} bytes", status=413)
        return data


def _format(name: str, direction: str):
    fmt = FORMATS.get(name)
    if fmt is None or (fmt.importer if direction == "import" else fmt.exporter) is None:
        choices = ", ".join(n for n, f in FORMATS.items() if (f.importer if direction == "import" else f.exporter))
        raise ServiceError("unknown_format", f"cannot {direction} {name!r}; formats: {choices}", status=404)
    return fmt


def _upload(request) -> bytes:
    if hasattr(request.data, "get") and not isinstance(request.data, (bytes, str)):
        upload = request.FILES.get("file")
        if upload is None:
            raise ServiceError("invalid_request", "send the file as the body or as multipart field `file`")
        if upload.size > _limit():
            raise ServiceError("too_large", f"the upload is larger than {_limit()} bytes", status=413)
        return upload.read()
    return bytes(request.data or b"")


class ImportView(APIView):
    parser_classes = [MultiPartParser, RawUploadParser]
    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        request={"application/octet-stream": bytes},
        responses={201: dict, 400: ErrorSerializer, 404: ErrorSerializer, 413: ErrorSerializer},
    )
    def post(self, request, fmt):
        converter = _format(fmt, "import")
        data = _upload(request)
        if not data:
            raise ServiceError("invalid_request", "the upload is empty")
        try:
            project = converter.importer(data)
        except FormatError as exc:
            raise ServiceError("invalid_import", str(exc)) from None
        state, token = project_service.create_project(
            project["title"][:200],
            project.get("description", ""),
            project["documents"],
            project["requests"],
            kubernetes_version=project.get("kubernetesVersion"),
        )
        return Response(
            {**state, "editToken": token, "warnings": project.get("warnings", [])}, status=status.HTTP_201_CREATED
        )


class ExportView(APIView):
    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "request", OpenApiTypes.INT, description="export only this sample request (its id) with the documents"
            )
        ],
        responses={(200, "application/octet-stream"): bytes, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request, project_id, fmt):
        _format(fmt, "export")
        project = project_service.export_state(project_id)
        chosen = request.query_params.get("request")
        if chosen is not None:
            project["requests"] = [r for r in project["requests"] if str(r.get("id")) == chosen]
            if not project["requests"]:
                raise ServiceError("not_found", f"no sample request {chosen!r} in this project", 404, path="request")
        try:
            body, media_type, filename, warnings = pool.call(jobs.export_project, fmt, project)
        except FormatError as exc:
            raise ServiceError("invalid_export", str(exc)) from None
        response = HttpResponse(body, content_type=media_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        response["X-Export-Warnings"] = json.dumps(warnings, ensure_ascii=True)
        return response
