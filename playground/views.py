"""Pages and plain endpoints. Thin: the work happens in health.py and the API package."""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from playground.health import health_report


@require_GET
@ensure_csrf_cookie
def index(request):
    return render(request, "index.html")


@require_GET
async def healthz(request):
    report = await health_report()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
