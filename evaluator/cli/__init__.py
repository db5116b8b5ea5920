"""The engine's command line, without Django: simulate | batch | impact | kyverno-test | test | mcp.

`simulate` decides one request, `batch` runs a cluster dump and sums up what would be denied, `impact`
compares two policy sets over a dump, a cluster or an audit log, `kyverno-test` runs a Kyverno test folder
as `kyverno test` does. Installed as the `admission-playground` console script; `python -m evaluator` is
the same command.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any

PROG = "admission-playground"


# Each subcommand's module, in `--help` order. A command imports only its own module (and what that needs):
# `simulate` never loads the batch machinery, nor `batch` the MCP server.
COMMANDS = {
    "simulate": "evaluator.cli.simulate_command",
    "batch": "evaluator.cli.batch",
    "impact": "evaluator.cli.impact",
    "kyverno-test": "evaluator.cli.kyverno_test",
    "test": "evaluator.cli.test_command",
    "mcp": "evaluator.mcp_server",
}


def _register_mcp(commands: Any) -> None:
    from evaluator import mcp_server
    from evaluator.cli.commands import add_command

    add_command(
        commands, "mcp", "serve the simulator to AI assistants (MCP over stdio)", mcp_server.__doc__, mcp_server.run
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of `command` alone (what `main` runs needs no other module)."""
    parser = argparse.ArgumentParser(prog=PROG, description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, module in COMMANDS.items():
        if command is not None and name != command:
            continue
        if name == "mcp":
            _register_mcp(commands)
        else:
            import_module(module).register(commands)
    return parser


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    return int(args.handler(args) or 0)


def process_main() -> int:
    """`main` as the whole of a process (the console script, `python -m evaluator`), started cheaply: the
    dataclasses' methods come compiled from the cache (`dataclass_code`), and the cyclic garbage collector
    does not walk what start-up made (modules, classes, tables: all alive to the end) while it is made,
    after it (`gc.freeze`), nor at exit (the interpreter's last collection)."""
    from evaluator.cli.dataclass_code import install

    gc.disable()
    install()
    args = _arguments(None)
    gc.freeze()
    gc.enable()
    try:
        return int(args.handler(args) or 0)
    finally:
        gc.freeze()


def console() -> None:
    """The console script's entry point (pyproject.toml [project.scripts])."""
    sys.exit(process_main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
