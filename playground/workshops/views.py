"""Workshop pages: the set list (open a room), the student page and the teacher's dashboard.

Each page gets `page_data` for `{{ page_data|json_script:"page-data" }}`; tokens never travel in the page
(the browser keeps them in localStorage), so the pages are the same for everyone with the link.
"""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from playground.core.errors import ServiceError
from playground.workshops.services import catalog, rooms


@require_GET
@ensure_csrf_cookie
def index(request):
    sets = catalog.list_sets()
    return render(
        request,
        "workshops/index.html",
        {"sets": sets, "page_data": {"page": "workshops", "sets": sets, "apiBase": "/api/v1/workshops/"}},
    )


@require_GET
@ensure_csrf_cookie
def author(request):
    """Write an exercise set: the page composes the YAML file through the API and imports it."""
    return render(
        request,
        "workshops/author.html",
        {"sets": catalog.list_sets(), "page_data": {"page": "workshop-author", "apiBase": "/api/v1/"}},
    )


def _room(code):
    try:
        return rooms.room_public(rooms.get_room(code))
    except ServiceError as exc:
        raise Http404(exc.message)


def _room_page(request, code: str, role: str):
    """A room's page for a student or its teacher: the room, and the socket the page joins."""
    room = _room(code)
    page_data = {
        "page": f"workshop-{role}",
        "code": room["code"],
        "room": room,
        "apiBase": "/api/v1/workshops/",
        "wsPath": f"/ws/rooms/{room['code']}/{role}/",
    }
    return render(request, f"workshops/{role}.html", {"room": room, "page_data": page_data})


@require_GET
@ensure_csrf_cookie
def student(request, code):
    return _room_page(request, code, "student")


@require_GET
@ensure_csrf_cookie
def teacher(request, code):
    return _room_page(request, code, "teacher")
