"""The CONTENT_SECURITY_POLICY setting (settings.py; its default and why in config.py) as the
Content-Security-Policy header of every response that has none of its own, with nosniff and a same-origin
referrer policy."""

from __future__ import annotations

from django.conf import settings


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = settings.CONTENT_SECURITY_POLICY
        response.setdefault("X-Content-Type-Options", "nosniff")
        response.setdefault("Referrer-Policy", "same-origin")
        return response
