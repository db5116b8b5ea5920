"""WebSocket routes of workshop rooms (included by playground/routing.py)."""

from django.urls import re_path

from playground.workshops.consumers import StudentConsumer, TeacherConsumer

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{4,12})/teacher/$", TeacherConsumer.as_asgi()),
    re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{4,12})/student/$", StudentConsumer.as_asgi()),
]
