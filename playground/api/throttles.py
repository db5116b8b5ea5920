"""Rate limit on evaluation endpoints (per client address), read from settings at each request."""

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class EvaluationThrottle(SimpleRateThrottle):
    scope = "evaluate"

    def get_rate(self):
        return settings.PLAYGROUND_EVALUATION_RATE

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
