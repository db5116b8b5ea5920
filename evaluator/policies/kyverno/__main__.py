"""`python -m evaluator.policies.kyverno kyverno-test DIR`: run Kyverno CLI test folders like `kyverno test`."""

from __future__ import annotations

import sys

from .cli_test import format_reports, run_directory


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "kyverno-test":
        print("usage: python -m evaluator.policies.kyverno kyverno-test DIR", file=sys.stderr)
        return 2
    reports = run_directory(argv[1])
    print(format_reports(reports))
    return 0 if all(r.passed for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
