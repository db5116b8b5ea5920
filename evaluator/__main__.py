"""`python -m evaluator simulate|batch ...` (see evaluator/cli)."""

import sys

from evaluator.cli import main

sys.exit(main())
