"""`python manage.py simulate -f policies.yaml -f request.yaml`: the engine's command line inside the project.

Arguments go to `python -m evaluator simulate`; `manage.py simulate batch ...` and
`manage.py simulate kyverno-test DIR` reach the engine's other subcommands.
"""

from django.core.management.base import BaseCommand

from evaluator.cli import main

_SUBCOMMANDS = ("simulate", "batch", "kyverno-test")


def engine_argv(args: list[str]) -> list[str]:
    return args if args and args[0] in _SUBCOMMANDS else ["simulate", *args]


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def run_from_argv(self, argv):
        # The engine parses its own options; Django's parser would reject them.
        raise SystemExit(main(engine_argv(argv[2:])))
