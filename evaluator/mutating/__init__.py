"""MutatingAdmissionPolicy: ApplyConfiguration (server-side apply) and JSONPatch mutations, reinvocation.

`simulate_mutating(documents, request)` is `evaluator.simulate.simulate` with the mutating policies run
first; `MutatingDispatcher` is the engine for callers that load documents themselves.
"""
from evaluator.mutating.admission import MutatingStage, denial_status, mutation_output, simulate_mutating
from evaluator.mutating.dispatcher import MutatingClusterIndex, MutatingDispatcher, MutationResult, PolicyError

__all__ = ["simulate_mutating", "MutatingStage", "mutation_output", "denial_status", "MutatingDispatcher", "MutatingClusterIndex",
           "MutationResult", "PolicyError"]
