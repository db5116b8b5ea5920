"""Rate limit on evaluation endpoints (per client address), read from settings at each request.

The counts live in the cache (Redis when REDIS_URL is set, so the limit holds across processes). While the
cache is down the limit is not applied: evaluation keeps being served, which matters more than the limit.
"""

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from playground.core import outage


class EvaluationThrottle(SimpleRateThrottle):
    scope = "evaluate"

    def get_rate(self):
        return settings.PLAYGROUND_EVALUATION_RATE

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            outage.report("rate-limit cache", exc)
            return True
