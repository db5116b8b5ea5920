"""Workshop page and API routes (included by playground/urls.py)."""

from django.urls import include, path

from playground.workshops import views

urlpatterns = [
    path("workshops", views.index, name="workshops"),
    path("workshops/author", views.author, name="workshop-author"),
    path("w/<str:code>", views.student, name="workshop-student"),
    path("w/<str:code>/teacher", views.teacher, name="workshop-teacher"),
    path("api/v1/workshops/", include("playground.workshops.api.urls")),
]
