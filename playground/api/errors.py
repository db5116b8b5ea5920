"""The API's one error shape, and the DRF exception handler that produces it in one place.

    {"error": {"code": str, "message": str, "document": str | int | None, "path": str | None,
               "line": int | None, "column": int | None}}

Services raise ServiceError (the one application error); DRF's own exceptions (405, 415, throttling,
validation) are mapped here too; a database or service outage, and a request that found no free database
connection (core/outage.py), is a 503 `unavailable` with Retry-After (the client comes back, nothing is
wrong with it); anything unexpected is logged once and answered as a 500 in the same shape. Non-DRF URLs
under /api/ get the shape from playground.middleware.ApiErrorMiddleware.
"""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from playground.core import outage
from playground.core.errors import ServiceError

logger = logging.getLogger(__name__)


def error_body(
    code: str,
    message: str,
    line: int | None = None,
    column: int | None = None,
    *,
    document=None,
    path: str | None = None,
) -> dict:
    return {
        "error": {"code": code, "message": message, "document": document, "path": path, "line": line, "column": column}
    }


def _validation_message(detail, prefix: str = "") -> str:
    """Flatten DRF's nested validation detail into 'field: message' text."""
    if isinstance(detail, dict):
        parts = [
            _validation_message(value, f"{prefix}{key}: " if key != "non_field_errors" else prefix)
            for key, value in detail.items()
        ]
        return "; ".join(parts)
    if isinstance(detail, list):
        return "; ".join(_validation_message(item, prefix) for item in detail)
    return f"{prefix}{detail}"


def exception_handler(exc, context):
    """DRF hook: map every exception raised in an API view to the one error shape."""
    if isinstance(exc, ServiceError):
        return Response({"error": exc.as_dict()}, status=exc.status)
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body("too_large", "request body is too large"), status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        )
    if isinstance(exc, exceptions.ValidationError):
        return Response(error_body("invalid_request", _validation_message(exc.detail)), status=exc.status_code)
    if isinstance(exc, exceptions.Throttled):
        return Response(
            error_body("throttled", str(exc.detail)),
            status=exc.status_code,
            headers={"Retry-After": str(int(exc.wait or 1))},
        )
    if isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        return Response(error_body(code, str(exc.detail)), status=exc.status_code)
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "not found"), status=status.HTTP_404_NOT_FOUND)
    if outage.is_outage(exc):
        return unavailable_response(exc)
    logger.exception("unexpected error in %s", context.get("view").__class__.__name__)
    return Response(error_body("internal_error", "internal error"), status=status.HTTP_500_INTERNAL_SERVER_ERROR)


def unavailable_body(exc: BaseException) -> tuple[dict, dict]:
    """(body, headers) of the 503 for an outage or a full database (reported once a period, not per request)."""
    saturated = outage.is_saturated(exc)
    outage.report("database connections" if saturated else "REST API", exc)
    error = outage.busy() if saturated else outage.unavailable()
    return {"error": error.as_dict()}, {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}


def unavailable_response(exc: BaseException) -> Response:
    body, headers = unavailable_body(exc)
    return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers=headers)
