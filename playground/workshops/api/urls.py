from django.urls import path

from playground.workshops.api import views as v

CODE = "rooms/<str:code>"

urlpatterns = [
    path("sets", v.SetListView.as_view(), name="api-workshop-sets"),
    path("sets/compose", v.SetComposeView.as_view(), name="api-workshop-set-compose"),
    path("sets/import", v.SetImportView.as_view(), name="api-workshop-set-import"),
    path("sets/<slug:slug>", v.SetDetailView.as_view(), name="api-workshop-set"),
    path("sets/<slug:slug>/source", v.SetSourceView.as_view(), name="api-workshop-set-source"),
    path("sets/<slug:slug>/export", v.SetExportView.as_view(), name="api-workshop-set-export"),
    path("rooms", v.RoomCreateView.as_view(), name="api-workshop-rooms"),
    path(CODE, v.RoomDetailView.as_view(), name="api-workshop-room"),
    path(f"{CODE}/join", v.JoinView.as_view(), name="api-workshop-join"),
    path(f"{CODE}/me", v.MeView.as_view(), name="api-workshop-me"),
    path(f"{CODE}/dashboard", v.DashboardView.as_view(), name="api-workshop-dashboard"),
    path(f"{CODE}/advance", v.AdvanceView.as_view(), name="api-workshop-advance"),
    path(f"{CODE}/hints", v.HintView.as_view(), name="api-workshop-hint"),
    path(f"{CODE}/solution", v.SolutionView.as_view(), name="api-workshop-solution"),
    path(f"{CODE}/announce", v.AnnounceView.as_view(), name="api-workshop-announce"),
    path(f"{CODE}/present", v.PresentView.as_view(), name="api-workshop-present"),
    path(f"{CODE}/time-box", v.TimeBoxView.as_view(), name="api-workshop-time-box"),
    path(f"{CODE}/coteachers", v.CoteacherLinkView.as_view(), name="api-workshop-coteachers"),
    path(f"{CODE}/close", v.CloseView.as_view(), name="api-workshop-close"),
    path(f"{CODE}/results.csv", v.ResultsCSVView.as_view(), name="api-workshop-results"),
]
