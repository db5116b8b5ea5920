"""MutatingAdmissionPolicy: ApplyConfiguration (server-side apply) and JSONPatch mutations, reinvocation.

`evaluator.simulation.simulate` runs `MutatingStage` before the validating policies; `MutatingDispatcher` is
the engine for callers that load documents themselves.
"""
from evaluator.mutating.admission import MutatingStage, denial_status, mutation_output
from evaluator.mutating.dispatcher import MutatingClusterIndex, MutatingDispatcher, MutationResult, PolicyError

__all__ = ["MutatingStage", "mutation_output", "denial_status", "MutatingDispatcher", "MutatingClusterIndex",
           "MutationResult", "PolicyError"]
