"""The batch page (/p/<project>/batch): the project's policies to choose from; static/src/batch-page.js does
the rest through the API."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

from playground.batch import inputs
from playground.services import project_service
from playground.core.errors import ServiceError


@require_safe
@ensure_csrf_cookie
def batch_page(request, project_id):
    try:
        project = project_service.project_state(project_id)
    except ServiceError as exc:
        if exc.status == 404:
            raise Http404(exc.message)
        raise
    objects, _ = inputs.project_objects(project["documents"])
    policies = inputs.policies_of(objects, project["kubernetesVersion"])
    return render(
        request,
        "batch.html",
        {
            "project": project,
            "policies": policies,
            "page_data": {"page": "batch", "projectId": project["id"], "apiBase": "/api/v1/", "policies": policies},
        },
    )
