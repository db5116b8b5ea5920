"""The CEL endpoint: validate the request, evaluate in the supervised workers, shape the answer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.json_safe import json_safe
from playground.api.strict import validated
from playground.api.serializers import CELRequestSerializer, CELResultSerializer, ErrorSerializer
from playground.api.throttles import EvaluationThrottle
from playground.api.variables import parse_variables_text
from playground.evaluation import jobs, pool
from playground.core.errors import ServiceError

# The engine's error kinds (jobs.evaluate_cel) and the API's codes; all are the user's data, hence 422.
_CEL_ERROR_CODES = {"compile": "compile_error", "evaluation": "evaluation_error", "cel": "cel_error"}


class CELEvaluateView(APIView):
    """Evaluate one CEL expression in the Kubernetes admission environment."""

    throttle_classes = [EvaluationThrottle]

    @extend_schema(
        request=CELRequestSerializer,
        responses={200: CELResultSerializer, 400: ErrorSerializer, 422: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request):
        data = validated(CELRequestSerializer, request.data)
        if "variables_text" in data:
            variables = parse_variables_text(data["variables_text"])
        else:
            variables = data.get("variables", {})
        outcome = pool.call(jobs.evaluate_cel, data["expression"], variables)
        if "error" in outcome:
            error = outcome["error"]
            raise ServiceError(
                _CEL_ERROR_CODES[error["kind"]], error["message"], 422, line=error["line"], column=error["column"]
            )
        return Response(json_safe(outcome))
