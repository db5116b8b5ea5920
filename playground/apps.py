from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Admission Playground"

    def ready(self):
        from playground import checks  # noqa: F401  (registers the system checks)
