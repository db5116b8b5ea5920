from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from playground import liveness, views
from playground.metrics_view import metrics_view

urlpatterns = [
    path("", views.index, name="index"),
    path("cel", views.cel, name="cel"),
    path("healthz", views.healthz, name="healthz"),
    path("livez", liveness.livez, name="livez"),
    path("metrics", metrics_view, name="metrics"),
    path("p/<str:project_id>", views.editor, name="editor"),
    path("projects", views.my_projects, name="my-projects"),
    path("s/<str:snapshot_id>", views.snapshot, name="snapshot"),
    path("embed/<str:snapshot_id>", views.embed, name="embed"),
    path("oembed", views.oembed, name="oembed"),
    path("examples", views.gallery, name="gallery"),
    path("examples/<slug:slug>", views.example, name="example"),
    path("", include("playground.workshops.urls")),
    path(
        "", include("playground.batch.urls")
    ),  # issue 22: /p/<id>/batch, /api/v1/batch/  # issue 8: /workshops, /w/<code>, /api/v1/workshops/
    path("", include("playground.impact.urls")),  # issue 35: /p/<id>/impact, /api/v1/impact/, …/versions
    path("api/v1/", include("playground.api.urls")),
    path("api/schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema-slash"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

handler404 = "playground.error_pages.page_not_found"
handler500 = "playground.error_pages.server_error"
