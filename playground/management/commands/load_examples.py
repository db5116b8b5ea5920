"""Store the gallery (playground/examples/*.yaml) as read-only example projects `ex-<slug>`."""

from django.core.management.base import BaseCommand

from playground.services.example_service import load_examples


class Command(BaseCommand):
    help = "Load or refresh the gallery examples as read-only projects."

    def handle(self, *args, **options):
        slugs = load_examples()
        self.stdout.write(f"load-examples: {len(slugs)} example(s) loaded")
