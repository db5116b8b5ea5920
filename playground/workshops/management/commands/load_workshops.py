"""Store the shipped exercise sets (playground/workshops/sets/*.yaml) in the database."""

from django.core.management.base import BaseCommand

from playground.workshops.services.catalog import load_sets


class Command(BaseCommand):
    help = "Load or refresh the workshop exercise sets."

    def handle(self, *args, **options):
        slugs = load_sets()
        self.stdout.write(f"load-workshops: {len(slugs)} exercise set(s) loaded: {', '.join(slugs)}")
