"""`/livez`: the server process answers. Unlike `/healthz` it checks no dependency, so an orchestrator that
restarts on a failed liveness probe does not restart every server while PostgreSQL or Redis is away (readiness,
on `/healthz`, takes them out of the load balancer instead)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_GET


@require_GET
async def livez(request):
    return JsonResponse({"status": "ok"})
