from django.apps import AppConfig


class BatchConfig(AppConfig):
    name = "playground.batch"
    label = "batch"
    verbose_name = "Admission Playground batch jobs"
    default_auto_field = "django.db.models.BigAutoField"
