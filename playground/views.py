"""Pages and plain endpoints. Thin: the work happens in services/, health.py and the API package.

Each page gets `page_data`, a plain dict for `{{ page_data|json_script:"page-data" }}` (never inline script);
the page's JavaScript reads it and talks to the API and the WebSocket.
"""

import re
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_safe

from evaluator.cel.versions import SUPPORTED_VERSIONS
from playground import landing, timestamps
from playground.health import health_report
from playground.models import Project
from playground.services import embed_service, example_meta, example_service, project_service, snapshot_service
from playground.core.errors import ServiceError


LANDING_EXAMPLE = "first-policy"


@require_GET
@ensure_csrf_cookie
def index(request):
    """The landing page: a small live example, its result computed here so it shows on first paint."""
    demo = landing.demo(LANDING_EXAMPLE)
    return render(
        request, "index.html", {"demo": demo, "page_data": {"page": "landing", "demo": demo, "apiBase": "/api/v1/"}}
    )


@require_GET
@ensure_csrf_cookie
def cel(request):
    return render(request, "cel.html", {"page_data": {"page": "cel"}})


@require_GET
async def healthz(request):
    report = await health_report()
    return JsonResponse(report, status=503 if report["status"] in ("error", "draining") else 200)


def _or_404(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except ServiceError as exc:
        if exc.status == 404:
            raise Http404(exc.message)
        raise


@require_safe
@ensure_csrf_cookie
def editor(request, project_id):
    project = _or_404(project_service.project_state, project_id)
    return render(
        request,
        "editor.html",
        {
            "project": project,
            "page_data": {
                "page": "editor",
                "projectId": project["id"],
                "readOnly": project["isExample"],
                "wsPath": f"/ws/projects/{project['id']}/",
                "apiBase": "/api/v1/",
                "kubernetesVersions": list(SUPPORTED_VERSIONS),
            },
        },
    )


@require_safe
@ensure_csrf_cookie
def my_projects(request):
    """The list lives in the browser (edit tokens never leave it); the page reads titles from the API."""
    return render(request, "my_projects.html", {"page_data": {"page": "my-projects", "apiBase": "/api/v1/"}})


@require_safe
@ensure_csrf_cookie
def snapshot(request, snapshot_id):
    content = _or_404(snapshot_service.get_snapshot, snapshot_id_=snapshot_id)
    created = timestamps.describe(content.get("created"))
    page_url = request.build_absolute_uri(f"/s/{content['id']}")
    return render(
        request,
        "snapshot.html",
        {
            "snapshot": content,
            "created": created,
            "share": embed_service.share_meta(content),
            "page_url": page_url,
            "oembed_url": request.build_absolute_uri("/oembed") + "?" + urlencode({"url": page_url, "format": "json"}),
            "read_only": True,
            "page_data": {
                "page": "snapshot",
                "snapshotId": content["id"],
                "snapshot": content,
                "apiBase": "/api/v1/",
                "kubernetesVersions": list(SUPPORTED_VERSIONS),
            },
        },
    )


@require_safe
@ensure_csrf_cookie
def gallery(request):
    examples = sorted(example_service.list_examples(), key=lambda e: e["title"].casefold())
    by_level = sorted(examples, key=lambda e: example_meta.DIFFICULTIES.index(e["difficulty"]))  # stable: A–Z within
    groups = [
        {"slug": slug, "title": title, "blurb": blurb, "examples": [e for e in by_level if e["groupSlug"] == slug]}
        for slug, title, blurb in example_meta.GROUPS
    ]
    searchable = [
        {**e, "words": example_meta.search_words(example_service.get_example(slug=e["slug"]))} for e in examples
    ]
    return render(
        request,
        "gallery.html",
        {
            "groups": [g for g in groups if g["examples"]],
            "count": len(examples),
            "page_data": {
                "page": "gallery",
                "examples": searchable,
                "groups": [{k: g[k] for k in ("slug", "title", "blurb")} for g in groups],
                "apiBase": "/api/v1/",
            },
        },
    )


@require_safe
@ensure_csrf_cookie
def example(request, slug):
    content = _or_404(example_service.get_example, slug=slug)
    loaded = Project.objects.filter(pk=content["projectId"]).exists()
    return render(
        request,
        "example.html",
        {
            "example": content,
            "read_only": True,
            "page_data": {
                "page": "example",
                "slug": slug,
                "example": content,
                "apiBase": "/api/v1/",
                "projectId": content["projectId"] if loaded else None,
                "wsPath": f"/ws/projects/{content['projectId']}/" if loaded else None,
                "kubernetesVersions": list(SUPPORTED_VERSIONS),
            },
        },
    )


def _frame_ancestors_anywhere(policy: str) -> str:
    """The site's Content-Security-Policy with `frame-ancestors *`: the one kind of page any site may frame."""
    kept = [d.strip() for d in policy.split(";") if d.strip() and not re.match(r"frame-ancestors(\s|$)", d.strip())]
    return "; ".join([*kept, "frame-ancestors *"])


@require_safe
@xframe_options_exempt
def embed(request, snapshot_id):
    """A snapshot for an <iframe> on another site: documents and results, read-only or "try it" (edits are
    evaluated by the stateless API and never saved). No CSRF cookie: a third-party frame has no use for one."""
    content = _or_404(snapshot_service.get_snapshot, snapshot_id_=snapshot_id)
    response = render(
        request,
        "embed.html",
        {
            "snapshot": content,
            "snapshot_url": request.build_absolute_uri(f"/s/{content['id']}"),
            "page_data": {
                "page": "embed",
                "snapshotId": content["id"],
                "snapshot": content,
                "apiBase": "/api/v1/",
                "kubernetesVersions": list(SUPPORTED_VERSIONS),
            },
        },
    )
    response["Content-Security-Policy"] = _frame_ancestors_anywhere(settings.CONTENT_SECURITY_POLICY)
    return response


@require_GET
def oembed(request):
    """oEmbed 1.0 for snapshot addresses: GET /oembed?url=<snapshot URL>&format=json → a "rich" iframe."""
    if request.GET.get("format", "json") != "json":
        return JsonResponse({"error": {"code": "not_implemented", "message": "only format=json"}}, status=501)
    try:
        answer = embed_service.oembed(
            request.GET.get("url", ""),
            origin=f"{request.scheme}://{request.get_host()}",
            host=request.get_host(),
            maxwidth=request.GET.get("maxwidth"),
            maxheight=request.GET.get("maxheight"),
        )
    except ServiceError as exc:
        return JsonResponse({"error": {"code": exc.code, "message": exc.message}}, status=exc.status)
    return JsonResponse(answer)
