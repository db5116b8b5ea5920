"""WebSocket URL routes: one room per project."""

from django.urls import re_path

from playground.consumers import ProjectConsumer
from playground.workshops.routing import websocket_urlpatterns as workshop_routes

websocket_urlpatterns = [
    re_path(r"^ws/projects/(?P<project_id>[A-Za-z0-9_-]{1,64})/$", ProjectConsumer.as_asgi()),
    *workshop_routes,  # issue 8: ws/rooms/<code>/teacher|student/
]
