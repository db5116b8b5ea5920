"""Static type checking of admission policy expressions against the schemas of the kinds they match.

`typecheck(policy, documents)` returns the API server's `status.typeChecking` (exactly), the kinds it
checks, and our own richer diagnostics. See policy.py for the output and environment.py for the types.
The package is `typechecking` so that `evaluator.typecheck` stays the public function.
"""

from evaluator.typechecking.policy import typecheck

__all__ = ["typecheck"]
