from django.urls import path

from playground.api import views

urlpatterns = [
    path("cel", views.CELEvaluateView.as_view(), name="api-cel"),
]
