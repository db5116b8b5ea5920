"""`python -m evaluator.kyverno kyverno-test DIR`: the same as `python -m evaluator kyverno-test DIR`."""

from __future__ import annotations

import sys

from evaluator.cli import main

if __name__ == "__main__":
    sys.exit(main(["kyverno-test", *sys.argv[2:]] if sys.argv[1:2] == ["kyverno-test"] else sys.argv[1:]))
