"""Pages and plain endpoints. Thin: the work happens in services/, health.py and the API package.

Each page gets `page_data`, a plain dict for `{{ page_data|json_script:"page-data" }}` (never inline script);
the page's JavaScript reads it and talks to the API and the WebSocket.
"""

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_safe

from evaluator.cel.versions import SUPPORTED_VERSIONS
from playground.health import health_report
from playground.models import Project
from playground.services import example_service, project_service, snapshot_service
from playground.services.errors import ServiceError


@require_GET
@ensure_csrf_cookie
def index(request):
    return render(request, "index.html", {"page_data": {"page": "index"}})


@require_GET
async def healthz(request):
    report = await health_report()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)


def _or_404(call, *args):
    try:
        return call(*args)
    except ServiceError as exc:
        if exc.status == 404:
            raise Http404(exc.message)
        raise


@require_safe
@ensure_csrf_cookie
def editor(request, project_id):
    project = _or_404(project_service.project_state, project_id)
    return render(request, "editor.html", {"project": project, "page_data": {
        "page": "editor", "projectId": project["id"], "readOnly": project["isExample"],
        "wsPath": f"/ws/projects/{project['id']}/", "apiBase": "/api/v1/",
        "kubernetesVersions": list(SUPPORTED_VERSIONS)}})


@require_safe
@ensure_csrf_cookie
def snapshot(request, snapshot_id):
    content = _or_404(snapshot_service.get_snapshot, snapshot_id)
    return render(request, "snapshot.html", {"snapshot": content, "page_data": {
        "page": "snapshot", "snapshotId": content["id"], "snapshot": content, "apiBase": "/api/v1/",
        "kubernetesVersions": list(SUPPORTED_VERSIONS)}})


@require_safe
@ensure_csrf_cookie
def gallery(request):
    examples = example_service.list_examples()
    return render(request, "gallery.html", {"examples": examples, "page_data": {
        "page": "gallery", "examples": examples, "apiBase": "/api/v1/"}})


@require_safe
@ensure_csrf_cookie
def example(request, slug):
    content = _or_404(example_service.get_example, slug)
    loaded = Project.objects.filter(pk=content["projectId"]).exists()
    return render(request, "example.html", {"example": content, "page_data": {
        "page": "example", "slug": slug, "example": content, "apiBase": "/api/v1/",
        "projectId": content["projectId"] if loaded else None,
        "wsPath": f"/ws/projects/{content['projectId']}/" if loaded else None,
        "kubernetesVersions": list(SUPPORTED_VERSIONS)}})
