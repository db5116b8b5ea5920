"""Every page of the site, ready to open: set-up through the REST API and what "usable" means on each.

Shared by the layout and accessibility tests (tests/browser/test_layout.py) and `make screenshots`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from tests.browser.helpers import project_body

EXAMPLE = "seed-vap-message-expression"


@dataclass
class SitePage:
    name: str
    path: str
    ready: str  # a selector that shows the page has rendered its main content
    actions: list[str] = field(default_factory=list)  # main controls: visible and enabled at every width
    storage: dict[str, str] = field(default_factory=dict)  # localStorage set before opening (edit tokens)
    # At a phone's width, when it differs: the editor's toolbar shows its primary action and "More" (the rest).
    phone_actions: list[str] | None = None


def batch_dump(count: int) -> str:
    """`count` Deployments as a `kubectl get -o json` List; every 4th has 7 replicas (over the limit of 5)."""
    items = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"web-{i}", "namespace": ("default", "prod", "dev")[i % 3]},
            "spec": {
                "replicas": 7 if i % 4 == 0 else 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        }
        for i in range(count)
    ]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def finished_batch_job(api, project_id: str, count: int = 40) -> dict:
    """A batch job over `count` objects, run to the end (its results make the batch page's content)."""
    status, job = api("POST", "/api/v1/batch/jobs", {"project": project_id, "text": batch_dump(count)})
    assert status == 201, job
    deadline = time.monotonic() + 60
    state = job
    while state["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        status, state = api("GET", f"/api/v1/batch/jobs/{job['id']}", token=job["editToken"])
    assert state["status"] == "done", state
    return job


def finished_impact_job(api, project_id: str, count: int = 40) -> dict:
    """An impact job (the project's version 1 against the project now) over `count` objects, run to the end."""
    body = {"base": {"project": project_id, "version": 1}, "head": {"project": project_id}, "text": batch_dump(count)}
    status, job = api("POST", "/api/v1/impact/jobs", body)
    assert status == 201, job
    deadline = time.monotonic() + 60
    state = job
    while state["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        status, state = api("GET", f"/api/v1/impact/jobs/{job['id']}", token=job["editToken"])
    assert state["status"] == "done", state
    return job


def site_pages(api) -> list[SitePage]:
    """Create a project, a snapshot and a workshop room, and list every page with its main actions."""
    status, project = api("POST", "/api/v1/projects", project_body(title="Layout check"))
    assert status == 201, project
    status, snapshot = api("POST", f"/api/v1/projects/{project['id']}/snapshots", {}, token=project["editToken"])
    assert status == 201, snapshot
    batch = finished_batch_job(api, project["id"])
    impact = finished_impact_job(api, project["id"])
    status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Layout class"})
    assert status == 201, room
    code = room["code"]
    return [
        SitePage(
            "landing", "/", "#landing-demo [data-testid=decision]", ["#btn-new-project", "main a[href='/examples']"]
        ),
        SitePage("cel", "/cel", "#cel-value:not(:empty)", ["#cel-form button[type=submit]", "#btn-cel-share"]),
        SitePage("gallery", "/examples", ".example-card", ["#gallery-filter"]),
        SitePage("example", f"/examples/{EXAMPLE}", ".result-card [data-testid=decision]", ["#btn-fork"]),
        SitePage(
            "project",
            f"/p/{project['id']}",
            ".cm-content[contenteditable=true]",  # the socket is open and the token accepted
            ["#btn-evaluate", "#btn-share", "#btn-fork", "#btn-add-document"],
            {f"admission-playground:token:{project['id']}": project["editToken"]},
            phone_actions=["#btn-share", "#toolbar-more", "#btn-add-document"],
        ),
        SitePage(
            "batch",
            f"/p/{project['id']}/batch",
            "#affected-table tbody tr",
            ["#btn-run", "#batch-files", "#affected-search"],
            {
                f"admission-playground:batch:{project['id']}": json.dumps(
                    {"id": batch["id"], "token": batch["editToken"]}
                )
            },
        ),
        SitePage(
            "impact",
            f"/p/{project['id']}/impact",
            "#totals .total",
            ["#btn-compare", "#impact-files", "#base-choice", "#head-choice"],
            {
                f"admission-playground:impact:{project['id']}": json.dumps(
                    {"id": impact["id"], "token": impact["editToken"]}
                )
            },
        ),
        SitePage("snapshot", f"/s/{snapshot['id']}", ".result-card [data-testid=decision]", ["#btn-fork"]),
        SitePage(
            "embed", f"/embed/{snapshot['id']}", ".result-card [data-testid=decision]", ["#btn-try", "#embed-open"]
        ),
        SitePage("workshops", "/workshops", ".ws-set", [".open-room", "#join-code"]),
        SitePage("workshop-student", f"/w/{code}", "#join-form:not([hidden])", ["#display-name"]),
        SitePage(
            "workshop-author",
            "/workshops/author",
            ".ws-author-exercise",
            ["#set-slug", "#add-exercise", "#load-project", "#check-set"],
        ),
        SitePage(
            "workshop-teacher",
            f"/w/{code}/teacher",
            "#teacher:not([hidden])",
            ["#advance", "#close-room"],
            {f"workshop:teacher:{code}": room["teacherToken"]},
        ),
        SitePage("not-found", "/w/NOPE99", ".error-page", ["a.error-home"]),
    ]
