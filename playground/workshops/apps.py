from django.apps import AppConfig


class WorkshopsConfig(AppConfig):
    name = "playground.workshops"
    label = "workshops"
    verbose_name = "Admission Playground workshops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from playground.core import edit_guards
        from playground.workshops.services import rooms

        edit_guards.register(rooms.refuse_locked_fork)
