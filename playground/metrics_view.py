"""`GET /metrics`: the Prometheus text format, to the requests playground/metrics_access.py lets in; any other
request gets the site's 404, as if nothing were there."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseNotAllowed
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from playground import metrics
from playground.metrics_access import allowed


def metrics_view(request):
    if not allowed(request.META, settings.METRICS_TOKEN, settings.METRICS_ALLOW):
        raise Http404("no such page")  # before the method check: a refused request learns nothing
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    metrics.register_collectors()
    response = HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
