"""MutatingAdmissionPolicy: ApplyConfiguration (server-side apply) and JSONPatch mutations, reinvocation.

Registered with the admission core as the first kind of the mutating stage (`admission.py`);
`MutatingDispatcher` is the engine for callers that load documents themselves.
"""

from evaluator.policies.mutating.admission import MutatingAdmissionPolicies, denial_status, mutation_output
from evaluator.policies.mutating.dispatcher import MutatingDispatcher, MutationResult, PolicyError

__all__ = [
    "MutatingAdmissionPolicies",
    "mutation_output",
    "denial_status",
    "MutatingDispatcher",
    "MutationResult",
    "PolicyError",
]
