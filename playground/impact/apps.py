from django.apps import AppConfig


class ImpactConfig(AppConfig):
    name = "playground.impact"
    label = "impact"
    verbose_name = "Admission Playground policy-change impact"
    default_auto_field = "django.db.models.BigAutoField"
