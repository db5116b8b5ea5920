"""REST endpoints of impact jobs (/api/v1/impact/...) and of a project's version history. Thin: versions,
jobs and results do the work. A job is reached with the edit token returned once at its creation
(X-Edit-Token), or its head project's edit token, like a batch job; its progress also streams on the batch
socket (ws/batch/<id>/), and `POST /api/v1/batch/jobs/<id>/cancel` cancels it (so does ours)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.batch import impact
from playground.api import strict
from playground.api.parsers import LocatedJSONParser
from playground.api.serializers import ErrorSerializer
from playground.api.strict import validated
from playground.api.throttles import EvaluationThrottle
from playground.batch import jobs as batch_jobs
from playground.core import edge
from playground.core.errors import ServiceError
from playground.impact import jobs, results, versions

JOB_TOKEN = OpenApiParameter(
    "X-Edit-Token",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="The job's edit token (from its creation), or its head project's.",
)
ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}
NO_TEXT = "give the corpus as text (or upload files as multipart field `file`)"
MULTIPART_FIELDS = {"base", "baseVersion", "head", "headVersion", "corpus", "text", "file"}


class ImpactJobInSerializer(serializers.Serializer):
    """The JSON body creating an impact job (multipart uploads are read by `_multipart_inputs`)."""

    base = strict.Object(help_text='The policies before the change: {"project": id, "version": N or null}.')
    head = strict.Object(help_text='The policies after the change: {"project": id, "version": N or null}.')
    corpus = strict.Text(
        required=False, allow_null=True, help_text="objects (a dump) or auditLog; left out: told from the content."
    )
    text = strict.Text(help_text="The corpus: objects (YAML, JSON, a List) or audit log (JSON lines, EventList).")
    filename = strict.Text(required=False, allow_null=True, help_text="A name for the pasted text in messages.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["text"].error_messages["required"] = NO_TEXT


def _token(request) -> str | None:
    return request.headers.get("X-Edit-Token")


def _json_inputs(data: object) -> tuple[object, object, object, list]:
    body = validated(ImpactJobInSerializer, data)
    name = body.get("filename") or "pasted text"
    return body["base"], body["head"], body.get("corpus"), [(name[:200], body["text"])]


def _version_field(data, name: str) -> int | None:
    value = data.get(name)
    if value in (None, ""):
        return None
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10):
        raise edge.invalid("must be a version number (1, 2, …), or left out for the project as it is now", name)
    return int(value)


def _multipart_inputs(request) -> tuple[object, object, object, list]:
    data = request.data
    unknown = sorted(set(data) - MULTIPART_FIELDS)
    if unknown:
        raise edge.invalid(f"unknown field (expected {', '.join(sorted(MULTIPART_FIELDS))})", unknown[0])
    base = {"project": data.get("base"), "version": _version_field(data, "baseVersion")}
    head = {"project": data.get("head"), "version": _version_field(data, "headVersion")}
    uploads: list[tuple[str, bytes | str]] = []
    files = request.FILES.getlist("file")
    size, limit = sum(upload.size or 0 for upload in files), settings.PLAYGROUND_BATCH_MAX_BYTES
    if size > limit:  # before reading the spooled files into memory
        raise ServiceError("too_large", f"the uploads are {size:,} bytes; the limit is {limit:,} bytes", 413)
    for upload in files:
        name = upload.name or "upload"
        if edge.text_problem(name):
            name = "upload"
        uploads.append((name[:200], upload.read()))
    text = data.get("text")
    if isinstance(text, str) and text.strip():
        uploads.append(("pasted text", text))
    return base, head, data.get("corpus"), uploads


class ImpactJobCreateView(APIView):
    parser_classes = [LocatedJSONParser, MultiPartParser]
    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        # multipart/form-data is accepted too (fields base, baseVersion, head, headVersion, corpus, file
        # (repeatable), text), left out of the schema for the reason playground/batch/api.py gives.
        description="Compare two policy sets over a corpus: what would the change from base to head deny, allow, "
        "warn or word differently? JSON as below, or multipart/form-data with fields `base`, `baseVersion`, "
        "`head`, `headVersion`, `corpus`, `file` (repeatable: a dump, or an audit log) and `text`.",
        request={"application/json": ImpactJobInSerializer},
        responses={201: dict, **ERRORS, 413: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request):
        if isinstance(request.data, dict) and not hasattr(request.data, "getlist"):
            base, head, corpus, uploads = _json_inputs(request.data)
        elif hasattr(request.data, "getlist"):
            base, head, corpus, uploads = _multipart_inputs(request)
        else:
            raise ServiceError("invalid_request", "the body must be a JSON object or multipart form data")
        state, token = jobs.create(base, head, corpus, uploads)
        return Response({**state, "editToken": token}, status=status.HTTP_201_CREATED)


class ImpactJobView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS})
    def get(self, request, job_id):
        job = jobs.impact_job(job_id, _token(request))
        batch_jobs.recover(job)
        job.refresh_from_db()
        return Response(jobs.state(job))


class ImpactJobCancelView(APIView):
    @extend_schema(request=None, parameters=[JOB_TOKEN], responses={200: dict, **ERRORS})
    def post(self, request, job_id):
        jobs.impact_job(job_id, _token(request))
        return Response(batch_jobs.cancel(job_id, _token(request)))


class ImpactReportView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS, 409: ErrorSerializer})
    def get(self, request, job_id):
        return Response(results.report(job_id, _token(request)))


class ImpactChangesView(APIView):
    @extend_schema(
        parameters=[
            JOB_TOKEN,
            OpenApiParameter("q", str, description="Text to find in kind, namespace, name, user, policies, messages."),
            OpenApiParameter("category", str, enum=list(impact.CATEGORIES)),
            OpenApiParameter("policy", str, description="Only requests this policy answers differently."),
            OpenApiParameter("namespace", str),
            OpenApiParameter("user", str),
            OpenApiParameter("offset", int),
            OpenApiParameter("limit", int, description=f"At most {results.PAGE_LIMIT}."),
        ],
        responses={200: dict, **ERRORS, 409: ErrorSerializer},
    )
    def get(self, request, job_id):
        return Response(results.changes(job_id, _token(request), request.query_params))


class ImpactChangeView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS, 409: ErrorSerializer})
    def get(self, request, job_id, index):
        return Response(results.change(job_id, _token(request), index))


class ImpactChangeResultsView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS, 409: ErrorSerializer})
    def get(self, request, job_id, index):
        return Response(results.full_results(job_id, _token(request), index))


class ImpactExportView(APIView):
    @extend_schema(
        parameters=[JOB_TOKEN],
        responses={(200, "application/octet-stream"): bytes, **ERRORS, 409: ErrorSerializer},
    )
    def get(self, request, job_id, fmt):
        text, content_type, filename = results.export(job_id, _token(request), fmt)
        response = HttpResponse(text, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class ProjectVersionsView(APIView):
    @extend_schema(responses={200: dict, 404: ErrorSerializer})
    def get(self, request, project_id):
        return Response(versions.history(project_id))
