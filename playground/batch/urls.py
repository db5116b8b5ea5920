"""Batch page and API routes (included by playground/urls.py)."""

from django.urls import path

from playground.batch import api, views

urlpatterns = [
    path("p/<str:project_id>/batch", views.batch_page, name="batch"),
    path("api/v1/batch/jobs", api.JobCreateView.as_view(), name="api-batch-jobs"),
    path("api/v1/batch/jobs/<str:job_id>", api.JobView.as_view(), name="api-batch-job"),
    path("api/v1/batch/jobs/<str:job_id>/cancel", api.JobCancelView.as_view(), name="api-batch-cancel"),
    path("api/v1/batch/jobs/<str:job_id>/results", api.JobResultsView.as_view(), name="api-batch-results"),
    path("api/v1/batch/jobs/<str:job_id>/objects", api.JobObjectsView.as_view(), name="api-batch-objects"),
    path("api/v1/batch/jobs/<str:job_id>/objects/<int:index>", api.JobObjectView.as_view(), name="api-batch-object"),
    path("api/v1/batch/jobs/<str:job_id>/export/<str:fmt>", api.JobExportView.as_view(), name="api-batch-export"),
]
