"""Styled 404, 500 and 503 pages for people, with a way back and a hint about what to check.

API URLs (`/api/…`) keep answering JSON in the API's one error shape: a script never gets an HTML page.
`PageNotFoundMiddleware` turns a view's Http404 into the styled page even with DEBUG on (Django's
technical 404 page would otherwise hide it); `handler404`/`handler500` in urls.py cover unknown URLs
and crashes in production. A view or middleware that failed because the database is out of connections
(or a backing service is down: core/outage.py) is a 503 with Retry-After, not a 500: from
`process_exception` for views, and from `handler500` (which Django calls inside the failed `except`) for the
rest.
"""

from __future__ import annotations

import sys

from django.http import Http404, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from playground.api.errors import unavailable_body
from playground.core import outage

API_PREFIX = "/api/"


def _hint(request) -> tuple[str, str]:
    """(heading, hint) for the page that was asked for, from its route name and arguments."""
    match = getattr(request, "resolver_match", None)
    name = match.url_name if match else None
    kwargs = match.kwargs if match else {}
    if name in ("workshop-student", "workshop-teacher"):
        code = kwargs.get("code", "")
        return "No such workshop room", f"There is no room with code {code} — check the code with your teacher."
    if name == "editor":
        return (
            "No such project",
            "This project does not exist, or the link is mistyped. Projects are only kept by their link.",
        )
    if name == "snapshot":
        return "No such snapshot", "This permalink does not exist: check that it was copied whole."
    if name == "example":
        return "No such example", f"There is no example named “{kwargs.get('slug', '')}”: browse the gallery for it."
    return (
        "Page not found",
        f"Nothing lives at {request.path} — check the address, or start from one of the links below.",
    )


def _api_error(code: str, message: str, status: int) -> JsonResponse:
    error = {"code": code, "message": message, "document": None, "path": None, "line": None, "column": None}
    return JsonResponse({"error": error}, status=status)


def not_found_page(request) -> HttpResponse:
    heading, hint = _hint(request)
    html = render_to_string("errors/404.html", {"heading": heading, "hint": hint}, request=request)
    return HttpResponse(html, status=404)


def page_not_found(request, exception=None):
    if request.path.startswith(API_PREFIX):
        return _api_error("not_found", f"no such endpoint: {request.path}", 404)
    return not_found_page(request)


def unavailable(request, exc: BaseException) -> HttpResponse:
    """503 with Retry-After: the API's error shape under /api/, a page that says to come back otherwise."""
    body, headers = unavailable_body(exc)
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse(body, status=503)
    else:
        html = render_to_string("errors/503.html", {"message": body["error"]["message"]})
        response = HttpResponse(html, status=503)
    for name, value in headers.items():
        response[name] = value
    return response


def server_error(request):
    failure = sys.exception()
    if failure is not None and outage.is_outage(failure):
        return unavailable(request, failure)
    if request.path.startswith(API_PREFIX):
        return _api_error("internal_error", "the server failed to answer; the error was logged", 500)
    # No request context: whatever broke may be in a context processor.
    return HttpResponse(render_to_string("errors/500.html"), status=500)


class PageNotFoundMiddleware:
    """A page view's Http404 (unknown project, room, snapshot, example) becomes the styled 404 page, and a
    view's outage (no free database connection) the 503 (with DEBUG on too, where handler500 is not used)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, Http404) and not request.path.startswith(API_PREFIX):
            return not_found_page(request)
        if outage.is_outage(exception):
            return unavailable(request, exception)
        return None
