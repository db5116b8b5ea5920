"""Content-Security-Policy on every response: scripts only from this origin, never inline.

Styles allow 'unsafe-inline' because CodeMirror 6 injects its theme as <style> elements. The API docs page
serves Swagger UI from our static files (drf-spectacular-sidecar) with its set-up script as a separate file
(SpectacularSwaggerSplitView), so it needs no exception.
"""

from __future__ import annotations

from django.conf import settings

DEFAULT_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
        response.setdefault("X-Content-Type-Options", "nosniff")
        response.setdefault("Referrer-Policy", "same-origin")
        return response
