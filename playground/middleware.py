"""Content-Security-Policy on every response: scripts only from this origin, never inline.

Styles allow 'unsafe-inline' because CodeMirror 6 injects its theme as <style> elements; the API docs page
(Swagger UI) also loads its bundle from the jsDelivr CDN.
"""

from __future__ import annotations

from django.conf import settings

DEFAULT_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                  "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; object-src 'none'; "
                  "base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
API_DOCS_POLICY = ("default-src 'self'; script-src 'self' https://cdn.jsdelivr.net; "
                   "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://cdn.jsdelivr.net; "
                   "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'")


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            docs = request.path.startswith("/api/docs")
            response["Content-Security-Policy"] = (API_DOCS_POLICY if docs else
                                                   getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY))
        response.setdefault("X-Content-Type-Options", "nosniff")
        response.setdefault("Referrer-Policy", "same-origin")
        return response
