"""Store the shipped exercise sets (playground/workshops/sets/*.yaml, the export/import format) in the
database, each validated like an import: every solution passes all its checks, every starter fails one."""

from django.core.management.base import BaseCommand, CommandError

from playground.core.errors import ServiceError
from playground.workshops.services.authoring import load_shipped_sets


class Command(BaseCommand):
    help = "Load or refresh the workshop exercise sets (validated like an import)."

    def handle(self, *args, **options):
        try:
            slugs = load_shipped_sets()
        except ServiceError as exc:
            raise CommandError(f"load-workshops: {exc.message}") from None
        self.stdout.write(f"load-workshops: {len(slugs)} exercise set(s) loaded: {', '.join(slugs)}")
