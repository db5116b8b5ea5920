"""REST endpoints of batch jobs (/api/v1/batch/...). Thin: jobs.py and results.py do the work.

Every job endpoint needs the job's edit token (X-Edit-Token), returned once when the job is created, or the
edit token of the job's project.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.cluster.selector import namespace_problem, selector_problem
from playground.api.parsers import LocatedJSONParser
from playground.api import strict
from playground.api.serializers import ErrorSerializer
from playground.api.strict import validated
from playground.api.throttles import EvaluationThrottle
from playground.batch import jobs, results
from playground.core import edge
from playground.core.errors import ServiceError

JOB_TOKEN = OpenApiParameter(
    "X-Edit-Token",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="The job's edit token (from its creation), or its project's.",
)
ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}
NO_TEXT = "give the objects as text (or upload files as multipart field `file`)"


class BatchJobInSerializer(serializers.Serializer):
    """The JSON body creating a job (multipart uploads are read by `_multipart_inputs`)."""

    project = strict.Text(required=False, allow_null=True, help_text="The project whose policies run.")
    policies = strict.Array(required=False, allow_null=True, help_text="Policy names (all when left out).")
    text = strict.Text(required=False, help_text="The objects: YAML, JSON or a `kubectl get -o yaml` List.")
    filename = strict.Text(required=False, allow_null=True, help_text="A name for the pasted text in messages.")
    cluster = strict.Object(
        required=False,
        help_text="Instead of text: read the objects from the connected cluster, {kinds?: [...], namespace?, "
        "labelSelector?} (default: the kinds the policies match).",
    )

    def validate(self, attrs):
        if "text" not in attrs and "cluster" not in attrs:
            raise serializers.ValidationError({"text": NO_TEXT})
        if "text" in attrs and "cluster" in attrs:
            raise serializers.ValidationError(
                {"cluster": "give the objects as text or read them from the cluster, not both"}
            )
        return attrs


def _token(request) -> str | None:
    return request.headers.get("X-Edit-Token")


def _json_inputs(data: object) -> tuple[str | None, list | None, list, dict | None]:
    body = validated(BatchJobInSerializer, data)
    if "cluster" in body:
        return body.get("project"), body.get("policies"), [], _cluster_spec(body["cluster"])
    name = body.get("filename") or "pasted text"
    return body.get("project"), body.get("policies"), [(name[:200], body["text"])], None


def _cluster_spec(spec: dict) -> dict:
    """{kinds: [str] | None, namespace, labelSelector}, checked field by field."""
    unknown = sorted(set(spec) - {"kinds", "namespace", "labelSelector"})
    if unknown:
        raise edge.invalid("unknown field (expected kinds, namespace, labelSelector)", f"cluster.{unknown[0]}")
    kinds = spec.get("kinds")
    if kinds is not None and not (
        isinstance(kinds, list) and all(isinstance(k, str) and k and not edge.text_problem(k) for k in kinds)
    ):
        raise edge.invalid("must be an array of kind names", "cluster.kinds")
    for field, check in (("namespace", namespace_problem), ("labelSelector", selector_problem)):
        value = spec.get(field)
        if value is not None and (not isinstance(value, str) or edge.text_problem(value)):
            raise edge.invalid("must be a string", f"cluster.{field}")
        wrong = check(value) if value else None
        if wrong:
            raise edge.invalid(wrong, f"cluster.{field}")
    return {"kinds": kinds, "namespace": spec.get("namespace"), "labelSelector": spec.get("labelSelector")}


def _multipart_inputs(request) -> tuple[str, object, list]:
    data = request.data
    unknown = sorted(set(data) - {"project", "policies", "text", "file"})
    if unknown:
        raise edge.invalid("unknown field (expected project, policies, text, file)", unknown[0])
    policies = data.getlist("policies") if "policies" in data else None
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
    return data.get("project"), policies, uploads


class JobCreateView(APIView):
    parser_classes = [LocatedJSONParser, MultiPartParser]
    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        # multipart/form-data (fields project, policies, file (repeatable), text) is accepted too, for uploads,
        # but left out of the schema: daphne (Twisted) answers a malformed multipart body itself, with an empty
        # 400, before the app sees it, which a schema fuzzer reports as a non-JSON answer.
        description="Create a batch job. JSON as below, or multipart/form-data with fields `project`, `policies` "
        "(repeatable), `file` (repeatable: YAML, JSON, List dumps, .tar.gz) and `text`.",
        request={"application/json": BatchJobInSerializer},
        responses={201: dict, **ERRORS, 409: ErrorSerializer, 413: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request):
        if isinstance(request.data, dict) and not hasattr(request.data, "getlist"):
            project, policies, uploads, cluster = _json_inputs(request.data)
        elif hasattr(request.data, "getlist"):
            project, policies, uploads = _multipart_inputs(request)
            cluster = None
        else:
            raise ServiceError("invalid_request", "the body must be a JSON object or multipart form data")
        state, token = jobs.create_job(project, policies, uploads, cluster)
        return Response({**state, "editToken": token}, status=status.HTTP_201_CREATED)


class JobView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS})
    def get(self, request, job_id):
        return Response(jobs.status(job_id, _token(request)))


class JobCancelView(APIView):
    @extend_schema(request=None, parameters=[JOB_TOKEN], responses={200: dict, **ERRORS})
    def post(self, request, job_id):
        return Response(jobs.cancel(job_id, _token(request)))


class JobResultsView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS, 409: ErrorSerializer})
    def get(self, request, job_id):
        return Response(results.summary(job_id, _token(request)))


class JobObjectsView(APIView):
    @extend_schema(
        parameters=[
            JOB_TOKEN,
            OpenApiParameter("q", str, description="Text to find in kind, namespace, name, policies, messages."),
            OpenApiParameter("policy", str, description="Only objects this policy did not simply admit."),
            OpenApiParameter("outcome", str, enum=list(results.OUTCOMES)),
            OpenApiParameter("namespace", str),
            OpenApiParameter("kind", str),
            OpenApiParameter("offset", int),
            OpenApiParameter("limit", int, description=f"At most {results.PAGE_LIMIT}."),
        ],
        responses={200: dict, **ERRORS, 409: ErrorSerializer},
    )
    def get(self, request, job_id):
        return Response(results.affected_objects(job_id, _token(request), request.query_params))


class JobObjectView(APIView):
    @extend_schema(parameters=[JOB_TOKEN], responses={200: dict, **ERRORS})
    def get(self, request, job_id, index):
        return Response(results.detail(job_id, _token(request), index))


class JobExportView(APIView):
    @extend_schema(
        parameters=[JOB_TOKEN],
        responses={(200, "application/octet-stream"): bytes, **ERRORS, 409: ErrorSerializer},
    )
    def get(self, request, job_id, fmt):
        text, content_type, filename = results.export(job_id, _token(request), fmt)
        response = HttpResponse(text, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
