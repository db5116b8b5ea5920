"""WebSocket URL routes: one room per project, workshop rooms, a batch job's progress."""

from django.urls import re_path

from playground.batch.routing import websocket_urlpatterns as batch_routes
from playground.consumers import ProjectConsumer
from playground.workshops.routing import websocket_urlpatterns as workshop_routes

websocket_urlpatterns = [
    re_path(r"^ws/projects/(?P<project_id>[A-Za-z0-9_-]{1,64})/$", ProjectConsumer.as_asgi()),
    *workshop_routes,  # issue 8: ws/rooms/<code>/teacher|student/
    *batch_routes,  # issue 22: ws/batch/<job id>/
]
