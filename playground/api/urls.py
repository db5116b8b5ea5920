from django.urls import path

from playground.api import cluster_views as cv
from playground.api import formats
from playground.api import project_views as pv
from playground.api import views

urlpatterns = [
    path("cel", views.CELEvaluateView.as_view(), name="api-cel"),
    path("evaluate", pv.EvaluateView.as_view(), name="api-evaluate"),
    path("projects", pv.ProjectCreateView.as_view(), name="api-projects"),
    path("projects/<str:project_id>", pv.ProjectDetailView.as_view(), name="api-project"),
    path("projects/<str:project_id>/token", pv.ProjectTokenView.as_view(), name="api-project-token"),
    path("projects/<str:project_id>/documents", pv.DocumentListView.as_view(), name="api-documents"),
    path("projects/<str:project_id>/documents/<int:item_id>", pv.DocumentDetailView.as_view(), name="api-document"),
    path("projects/<str:project_id>/requests", pv.RequestListView.as_view(), name="api-requests"),
    path("projects/<str:project_id>/requests/<int:item_id>", pv.RequestDetailView.as_view(), name="api-request"),
    path("projects/<str:project_id>/evaluate", pv.ProjectEvaluateView.as_view(), name="api-project-evaluate"),
    path("projects/<str:project_id>/snapshots", pv.ProjectSnapshotView.as_view(), name="api-project-snapshots"),
    path("snapshots/<str:snapshot_id>", pv.SnapshotDetailView.as_view(), name="api-snapshot"),
    path("snapshots/<str:snapshot_id>/fork", pv.SnapshotForkView.as_view(), name="api-snapshot-fork"),
    path("examples", pv.ExampleListView.as_view(), name="api-examples"),
    path("examples/<slug:slug>", pv.ExampleDetailView.as_view(), name="api-example"),
    path("examples/<slug:slug>/fork", pv.ExampleForkView.as_view(), name="api-example-fork"),
    # issue 19: import and export (playground/api/formats.py)
    path("import/<str:fmt>", formats.ImportView.as_view(), name="api-import"),
    path("projects/<str:project_id>/export/<str:fmt>", formats.ExportView.as_view(), name="api-export"),
    # issue 37: load from a connected cluster (playground/api/cluster_views.py)
    path("cluster", cv.ClusterStatusView.as_view(), name="api-cluster"),
    path("cluster/count", cv.ClusterCountView.as_view(), name="api-cluster-count"),
    path("projects/<str:project_id>/cluster/load", cv.ClusterLoadView.as_view(), name="api-cluster-load"),
    path("projects/<str:project_id>/cluster/refresh", cv.ClusterRefreshView.as_view(), name="api-cluster-refresh"),
    path(
        "projects/<str:project_id>/cluster/sample-request",
        cv.ClusterSampleRequestView.as_view(),
        name="api-cluster-sample-request",
    ),
]
