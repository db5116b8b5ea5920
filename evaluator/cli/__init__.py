"""The engine's command line, without Django: simulate | batch | kyverno-test | test | mcp.

`simulate` decides one request, `batch` runs a cluster dump and sums up what would be denied, `kyverno-test`
runs a Kyverno test folder as `kyverno test` does. Installed as the `admission-playground` console script;
`python -m evaluator` is the same command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

PROG = "admission-playground"


def build_parser() -> argparse.ArgumentParser:
    from evaluator import mcp_server
    from evaluator.cli import batch, kyverno_test, simulate_command, test_command
    from evaluator.cli.commands import add_command

    parser = argparse.ArgumentParser(prog=PROG, description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    simulate_command.register(commands)
    batch.register(commands)
    kyverno_test.register(commands)
    test_command.register(commands)
    add_command(
        commands, "mcp", "serve the simulator to AI assistants (MCP over stdio)", mcp_server.__doc__, mcp_server.run
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.handler(args) or 0)


def console() -> None:
    """The console script's entry point (pyproject.toml [project.scripts])."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
