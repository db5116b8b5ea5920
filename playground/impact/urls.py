"""Impact page and API routes (included by playground/urls.py)."""

from django.urls import path

from playground.impact import api, views

urlpatterns = [
    path("p/<str:project_id>/impact", views.impact_page, name="impact"),
    path("api/v1/projects/<str:project_id>/versions", api.ProjectVersionsView.as_view(), name="api-project-versions"),
    path("api/v1/impact/jobs", api.ImpactJobCreateView.as_view(), name="api-impact-jobs"),
    path("api/v1/impact/jobs/<str:job_id>", api.ImpactJobView.as_view(), name="api-impact-job"),
    path("api/v1/impact/jobs/<str:job_id>/cancel", api.ImpactJobCancelView.as_view(), name="api-impact-cancel"),
    path("api/v1/impact/jobs/<str:job_id>/report", api.ImpactReportView.as_view(), name="api-impact-report"),
    path("api/v1/impact/jobs/<str:job_id>/changes", api.ImpactChangesView.as_view(), name="api-impact-changes"),
    path(
        "api/v1/impact/jobs/<str:job_id>/changes/<int:index>", api.ImpactChangeView.as_view(), name="api-impact-change"
    ),
    path(
        "api/v1/impact/jobs/<str:job_id>/changes/<int:index>/results",
        api.ImpactChangeResultsView.as_view(),
        name="api-impact-change-results",
    ),
    path("api/v1/impact/jobs/<str:job_id>/export/<str:fmt>", api.ImpactExportView.as_view(), name="api-impact-export"),
]
