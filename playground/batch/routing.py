"""WebSocket route of a batch job's progress (included by playground/routing.py)."""

from django.urls import re_path

from playground.batch.consumer import BatchJobConsumer

websocket_urlpatterns = [
    re_path(r"^ws/batch/(?P<job_id>[A-Za-z0-9]{1,32})/$", BatchJobConsumer.as_asgi()),
]
