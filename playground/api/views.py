"""API views. Thin: validate the request, call the engine, shape the answer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

import evaluator.cel as cel
from playground.api.errors import APIError
from playground.api.json_safe import json_safe
from playground.api.serializers import CELRequestSerializer, CELResultSerializer, ErrorSerializer
from playground.api.variables import parse_variables_text
from playground.services.cel_service import evaluate_expression

_UNPROCESSABLE = status.HTTP_422_UNPROCESSABLE_ENTITY


class CELEvaluateView(APIView):
    """Evaluate one CEL expression in the Kubernetes admission environment."""

    @extend_schema(
        request=CELRequestSerializer,
        responses={200: CELResultSerializer, 400: ErrorSerializer, 422: ErrorSerializer},
    )
    def post(self, request):
        serializer = CELRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if "variables_text" in data:
            variables = parse_variables_text(data["variables_text"])
        else:
            variables = data.get("variables", {})
        try:
            outcome = evaluate_expression(data["expression"], variables)
        except cel.CompileError as exc:
            raise APIError("compile_error", exc.message, line=exc.line, column=exc.column,
                           http_status=_UNPROCESSABLE)
        except cel.EvaluationError as exc:
            raise APIError("evaluation_error", exc.message, line=exc.line, column=exc.column,
                           http_status=_UNPROCESSABLE)
        except cel.CELError as exc:  # any other engine error is still the user's data, not a crash
            raise APIError("cel_error", exc.message, line=exc.line, column=exc.column,
                           http_status=_UNPROCESSABLE)
        return Response(json_safe(outcome))
