from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from playground import views

urlpatterns = [
    path("", views.index, name="index"),
    path("healthz", views.healthz, name="healthz"),
    path("api/v1/", include("playground.api.urls")),
    path("api/schema", SpectacularAPIView.as_view(), name="api-schema"),
]
