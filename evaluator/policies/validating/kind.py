"""ValidatingAdmissionPolicy as a policy kind of the admission core (validating stage, first plugin).

Loading compiles every bound policy once and reports what the API server would (compile errors, bindings
naming no policy, policies without a binding); each request goes through `Dispatcher`, whose first denial
becomes the Status the API server answers with.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from evaluator.admission.error_location import locate_diagnostics, pointer, where
from evaluator.admission.policy_kind import VALIDATING, Denial, KindOutcome, RequestContext, Setup, register
from evaluator.admission.response import ferricel, status_for
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.kinds import ADMISSION_GROUP, VALIDATING_BINDING, VALIDATING_POLICY
from evaluator.k8s.restmapping import parse_group_version
from evaluator.policies.validating.compiler import CompiledPolicy, compile_policy
from evaluator.policies.validating.dispatcher import CompileCache, Dispatcher, DispatchResult, denial_message


def _is_policy(document: Mapping[str, Any]) -> bool:
    api_version = document.get("apiVersion")
    gv = parse_group_version(api_version if isinstance(api_version, str) else "") or ("", "")
    return gv[0] == ADMISSION_GROUP and document.get("kind") == VALIDATING_POLICY


@register
class ValidatingAdmissionPolicies:
    name = VALIDATING_POLICY
    stage = VALIDATING
    order = 100
    result_keys: Mapping[str, Any] = {}

    def __init__(self) -> None:
        self._compiled: dict[int, tuple[Mapping, CompiledPolicy]] = {}
        self.cache: CompileCache | None = None
        self.documents: list[Mapping[str, Any]] = []
        self._type_checks: dict[str, dict] | None = None
        self._locate: Any = lambda document, **fields: dict(fields)
        self._refused: dict[str, dict[str, Any]] = {}
        self.policies: list[Mapping[str, Any]] = []
        self.active = False
        self._dispatchers = threading.local()  # a Dispatcher per thread and RequestContext.trace (see _dispatcher)

    def _compile(self, policy: Mapping[str, Any]) -> CompiledPolicy:
        hit = self._compiled.get(id(policy))
        if hit is None or hit[0] is not policy:
            hit = self._compiled[id(policy)] = (policy, compile_policy(policy))
        return hit[1]

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The create-time compile also types `variables`: a reference to a variable that is not declared
        before is refused there too (the structural check cannot see it)."""
        if not _is_policy(document):
            return []
        return [
            fe.invalid(error["path"], error["expression"], error["message"]).to_dict()
            for error in self._compile(document).compile_errors
        ]

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        cluster = setup.cluster
        self.documents = setup.documents
        self.cache = CompileCache(cluster, self._compile)
        self.policies = cluster.objects(ADMISSION_GROUP, VALIDATING_POLICY)
        errors = []
        self._locate = setup.locate
        self._refused = {name: error for (kind, name), error in setup.refused.items() if kind == VALIDATING_POLICY}
        for binding in cluster.orphan_bindings(VALIDATING_POLICY, VALIDATING_BINDING):
            policy = str((binding.get("spec") or {}).get("policyName") or "")
            refused = self._refused.get(policy)
            if refused is None:
                errors.append(
                    setup.locate(
                        binding,
                        severity="warning",
                        path="spec.policyName",
                        message=f'ValidatingAdmissionPolicy "{policy}" not found: the binding has no effect',
                    )
                )
            else:  # it exists but the API server refused it: say so, and where its error is
                errors.append(
                    setup.locate(
                        binding,
                        severity="warning",
                        path="spec.policyName",
                        policyError=pointer(refused),
                        message=f'ValidatingAdmissionPolicy "{policy}" is invalid, so the binding has '
                        f"no effect: see its error{where(refused)}",
                    )
                )
        hooks = self.cache.tuples.hooks()
        bound = {id(policy) for policy, _ in hooks}
        for unbound in self.policies:
            if id(unbound) not in bound:
                metadata = unbound.get("metadata")
                name = metadata.get("name") if isinstance(metadata, Mapping) else None
                errors.append(
                    setup.locate(
                        unbound,
                        severity="warning",
                        message=f'ValidatingAdmissionPolicy "{name}" has no binding: it has no effect',
                    )
                )
        for policy, _ in hooks:
            for error in self.cache.get(policy).compile_errors:
                errors.append(setup.locate(policy, severity="error", **error))
        self.active = bool(hooks)
        return errors

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        dispatcher = self._dispatcher(context.trace)
        dispatcher.authorizer_factory = context.authorizers
        # a request no mutation changed stands for itself by what it was read from (validating/reuse.py)
        dispatcher.origin = context.origin if request is context.original else None
        try:
            outcome = dispatcher.dispatch(request)
        finally:  # the factory refers to the simulation, which holds this kind: no cycle is left behind
            dispatcher.authorizer_factory = None
            dispatcher.origin = None
        return KindOutcome(
            records=outcome.policies,
            denial=_denial(context.original, outcome),
            warnings=outcome.warnings,
            audit_annotations=outcome.audit_annotations,  # the outcome's own dict: nothing else holds it
        )

    def _dispatcher(self, trace: bool) -> Dispatcher:
        """A Dispatcher kept per thread and trace setting: it holds a request's state while it runs (so two
        threads sharing one Simulation must not share it) and nothing once that is done; the caller gives it
        the request's authorizer factory."""
        kept: dict[bool, Dispatcher] = self._dispatchers.__dict__
        found = kept.get(trace)
        if found is None or found.cache is not self.cache:
            found = kept[trace] = Dispatcher(self.cache.tuples.cluster, None, self.cache, trace=trace)
        return found

    def type_checks(self) -> dict[str, dict]:
        """`evaluator.typecheck` of every ValidatingAdmissionPolicy (by name), computed once per document set."""
        if self._type_checks is None:
            from evaluator.typechecking.remembered import remembered_typecheck

            checks = {}
            for policy in self.policies:
                name = str((policy.get("metadata") or {}).get("name") or "(unnamed)")
                try:
                    checks[name] = remembered_typecheck(policy, self.documents)
                except Exception as exc:  # a checker bug must not hide the decision
                    checks[name] = {"error": f"type checking failed: {type(exc).__name__}: {exc}"}
                    continue
                locate_diagnostics(checks[name], lambda **f: self._locate(policy, **f))
            for name, error in self._refused.items():  # refused: listed as not checked, never as clean
                checks.setdefault(
                    name or "(unnamed)",
                    {
                        "notChecked": "the policy has configuration errors: fix them first",
                        "policyError": pointer(error),
                    },
                )
            self._type_checks = checks
        return self._type_checks


def _denial(request: Mapping[str, Any], outcome: DispatchResult) -> Denial | None:
    """The first denial answers the request (admission.NewForbidden with that decision's reason and code)."""
    if not outcome.denials:
        return None
    first = outcome.denials[0]
    denials = [
        {
            "policy": d.policy,
            "binding": d.binding,
            "message": denial_message(d.policy, d.binding, d.message),
            "reason": d.reason or "Invalid",
        }
        for d in outcome.denials
    ]
    return Denial(
        status=status_for(request, denials[0]["message"], first.reason),  # the first's text, worded once
        denials=denials,
        ferricel=ferricel(False, (first.message, first.reason)),
    )
