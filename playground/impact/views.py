"""The compare page (/p/<project>/impact): the project's version history and the other choices of base and
head; static/src/impact-page.js does the rest through the API."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

from playground.core.errors import ServiceError
from playground.impact import versions


@require_safe
@ensure_csrf_cookie
def impact_page(request, project_id):
    try:
        history = versions.history(project_id)
    except ServiceError as exc:
        if exc.status == 404:
            raise Http404(exc.message)
        raise
    return render(
        request,
        "impact.html",
        {
            "history": history,
            "page_data": {"page": "impact", "projectId": history["project"], "apiBase": "/api/v1/"},
        },
    )
