"""ValidatingAdmissionPolicy on top of the admission core: compile a policy (`compiler`), evaluate it for one
(binding, param) as the API server's validator does (`validator`), every tuple of a request (`dispatcher`),
registered with the core as the first kind of the validating stage (`kind`). Result schema: evaluator/SCHEMA.md."""

from evaluator.policies.validating import create_rules  # noqa: F401  (registers the create-time rules)
from evaluator.policies.validating.kind import ValidatingAdmissionPolicies

__all__ = ["ValidatingAdmissionPolicies"]
