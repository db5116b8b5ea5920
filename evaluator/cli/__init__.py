"""`python -m evaluator <command>`: simulate one request, or run a cluster dump as a batch (no Django).

Other packages add commands by exposing `register(subparsers)` in a module listed in PLUGINS.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

PLUGINS = ("evaluator.cli.kyverno_test",)


def build_parser() -> argparse.ArgumentParser:
    from evaluator.cli import batch, simulate_command

    parser = argparse.ArgumentParser(prog="python -m evaluator", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    simulate_command.register(commands)
    batch.register(commands)
    for name in PLUGINS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        register = getattr(module, "register", None)
        if callable(register):
            register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
