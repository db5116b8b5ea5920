"""`python -m evaluator simulate|batch ...` (see evaluator/cli)."""

import sys

from evaluator.cli import process_main

sys.exit(process_main())
