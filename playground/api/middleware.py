"""JSON errors for every URL under /api/, including those no DRF view answers (unknown URL, crash, bad path).

DRF's exception handler shapes what its views raise; Django answers the rest (a 404 for an unknown URL, a 500
page for a crash outside DRF) with HTML. For an /api/ URL that becomes the API's one error shape here.
"""

from __future__ import annotations

from django.http import JsonResponse

from playground.api.errors import error_body
from playground.core.edge import text_problem

API_PREFIX = "/api/"
_CODES = {
    400: "invalid_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    429: "throttled",
    500: "internal_error",
    503: "unavailable",
}
_KEPT_HEADERS = ("Allow", "Retry-After")  # what a method or a busy server tells the client, kept on the JSON


def _is_json(response) -> bool:
    return response.get("Content-Type", "").startswith(("application/json", "application/vnd.oai.openapi+json"))


class ApiErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        problem = text_problem(request.path)
        if problem:
            return JsonResponse(error_body("invalid_request", f"the URL {problem}"), status=400)
        response = self.get_response(request)
        if response.status_code >= 400 and not _is_json(response) and not request.path.startswith("/api/docs"):
            status = response.status_code
            code = _CODES.get(status, "error")
            message = "internal error" if status >= 500 and status != 503 else code.replace("_", " ")
            if status == 404:
                message = f"no API endpoint at {request.path}"
            replaced = JsonResponse(error_body(code, message), status=status)
            for header in _KEPT_HEADERS:
                if response.has_header(header):
                    replaced[header] = response[header]
            return replaced
        return response
