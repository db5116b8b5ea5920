"""The generic (policy, binding, param) dispatcher: which tuples of one policy kind a request reaches.

This is the part of the API server's generic.policyDispatcher that every policy-and-binding kind shares
(ValidatingAdmissionPolicy, MutatingAdmissionPolicy, and kinds built the same way): for each policy that
some binding names, resolve its paramKind, match the policy (spec.matchConstraints), then each binding
(spec.matchResources), and collect the binding's params. What a tuple then *does* (validate, mutate) is the
kind's business; so is the order in which it reports skips and errors, which is why `resolve` returns a
plain description instead of calling back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission.cluster import ClusterIndex
from evaluator.admission.matching import (
    MatchMemo,
    MatchResult,
    binding_matches,
    compile_criteria,
    match_resources,
    memo_key,
    policy_matches,
)
from evaluator.admission.params import ParamSource, PolicySkipped, collect_params, resolve_param_kind


_MATCHES_KEPT = 4096
_PARAMS_KEPT = 4096


@dataclass
class BindingTuples:
    """One binding of a matched policy: skipped (with why), a configuration error, or its params (each param
    is one tuple to evaluate; `[None]` is one evaluation with `params == null`)."""

    binding: Mapping[str, Any]
    skip: str | None = None
    error: str | None = None
    params: list[Any] = field(default_factory=list)


@dataclass
class PolicyTuples:
    """One policy's part of a request: skipped or a configuration error, else its bindings (read-only: the
    list may be shared between requests)."""

    policy: Mapping[str, Any]
    compiled: Any
    skip: str | None = None
    error: str | None = None
    matched_kind: Any = None
    matched_resource: Any = None
    bindings: list[BindingTuples] = field(default_factory=list)


class PolicyDispatcher:
    """The hooks of one (policy kind, binding kind) pair in a cluster, each policy compiled once by `compile`
    (whose result must have a `param_kind` attribute); reuse it across requests."""

    def __init__(
        self, cluster: ClusterIndex, policy_kind: str, binding_kind: str, compile: Callable[[Mapping[str, Any]], Any]
    ):
        self.cluster = cluster
        self.policy_kind = policy_kind
        self.binding_kind = binding_kind
        self._compile = compile
        self._compiled: dict[int, tuple[Mapping, Any]] = {}
        self._sources: dict[int, tuple[Mapping, tuple]] = {}
        self._plans: dict[int, _Plan] = {}
        self._hooks: list[tuple[Mapping, list[Mapping]]] | None = None
        # Answers of criteria that read no labels: by criteria (memo key), then by request key.
        self._matches: dict[str, dict[tuple, MatchResult]] = {}

    def hooks(self) -> list[tuple[Mapping, list[Mapping]]]:
        """(policy, bindings) for every policy of this kind that some binding names, in document order (the
        cluster's list, kept: its documents never change)."""
        hooks = self._hooks
        if hooks is None:
            hooks = self._hooks = self.cluster.hooks(self.policy_kind, self.binding_kind)
        return hooks

    def compiled(self, policy: Mapping[str, Any]) -> Any:
        hit = self._compiled.get(id(policy))
        if hit is None or hit[0] is not policy:
            hit = (policy, self._compile(policy))
            self._compiled[id(policy)] = hit
        return hit[1]

    def param_source(self, policy: Mapping[str, Any]) -> tuple[ParamSource | None, str | None, str | None]:
        """(ParamSource, configuration error, reason the policy is dropped) for the policy's paramKind."""
        hit = self._sources.get(id(policy))
        if hit is not None and hit[0] is policy:
            return hit[1]
        try:
            value = (*resolve_param_kind(self.compiled(policy).param_kind, self.cluster), None)
        except PolicySkipped as exc:
            value = (None, None, str(exc))
        self._sources[id(policy)] = (policy, value)
        return value

    def _plan(self, policy: Mapping[str, Any], bindings: list[Mapping]) -> _Plan:
        hit = self._plans.get(id(policy))
        if hit is not None and hit.policy is policy and hit.binding_list is bindings:
            return hit
        source, config_error, skipped = self.param_source(policy)
        spec = policy.get("spec") if isinstance(policy, Mapping) else None
        constraints = spec.get("matchConstraints") if isinstance(spec, Mapping) else None
        plan = _Plan(
            policy,
            bindings,
            self.compiled(policy),
            source,
            config_error,
            skipped,
            constraints if isinstance(constraints, Mapping) else None,
            [(b, _has_match_resources(b), (b.get("spec") or {}).get("paramRef")) for b in bindings],
        )
        # Bindings that match whatever their policy matches and take no params (CollectParams: one tuple with
        # `params == null`) give the same answer to every request: computed once, the list shared read-only.
        if plan.constraints is not None:
            plan.constraints_key = memo_key(plan.constraints)
        param_kind = plan.compiled.param_kind
        if all(not has and (param_kind is None or ref is None) for _, has, ref in plan.bindings):
            plan.static = [BindingTuples(b, params=[None]) for b, _, _ in plan.bindings]
        plan.static_match = (
            plan.static is not None and plan.constraints is not None and plan.skipped is None and not plan.config_error
        )
        self._plans[id(policy)] = plan
        return plan

    def resolve_static(
        self, policy: Mapping[str, Any], bindings: list[Mapping], request: Mapping[str, Any], memo: MatchMemo
    ) -> tuple[_Plan, Any, Any] | None:
        """`resolve`'s answer without the PolicyTuples, for the commonest case: a policy with matchConstraints
        that matched, no paramKind problem and bindings no request changes (`_Plan.static`). Then (the plan:
        its `compiled`, its bindings' tuples `static` (shared, read-only) and the kind's `prepared` data;
        matched kind; matched resource); None for anything else, which `resolve` (with the same memo: no second
        match) describes."""
        plan = self._plans.get(id(policy))  # _plan's lookup, inline: this runs for every policy of every request
        if plan is None or plan.policy is not policy or plan.binding_list is not bindings:
            plan = self._plan(policy, bindings)
        if not plan.static_match:
            return None
        match = memo.get(plan.constraints_key)
        if match is None:
            match = memo[plan.constraints_key] = self._labelless_match(plan, request)
        if match.error is not None or not match.matched:
            return None
        return plan, match.matched_kind or request.get("kind"), match.matched_resource or request.get("resource")

    def _labelless_match(self, plan: _Plan, request: Mapping[str, Any]) -> MatchResult:
        """The policy's matchConstraints against `request`. Criteria that read no labels answer every request
        with the same `request_key` (resource, kind, operation, scope...) alike, whatever its object: those
        answers are kept for the document set (shared read-only, as a MatchMemo's are)."""
        criteria = compile_criteria(plan.constraints)
        namespaces, mapper = self.cluster.namespaces, self.cluster.mapper
        if criteria.reads_labels():
            return criteria.match(request, namespaces, mapper)
        answers = self._matches.get(plan.constraints_key)  # by request key
        if answers is None:
            answers = self._matches[plan.constraints_key] = {}
        key = criteria.request_key(request)
        found = answers.get(key)
        if found is None:
            if len(answers) >= _MATCHES_KEPT:
                answers.clear()
            found = answers[key] = criteria.match(request, namespaces, mapper)
        return found

    def resolve(
        self,
        policy: Mapping[str, Any],
        bindings: list[Mapping],
        request: Mapping[str, Any],
        memo: MatchMemo | None = None,
    ) -> PolicyTuples:
        """Where `request` leaves this policy and each of its bindings (in the server's order of checks).
        Pass one `memo` (a dict) for all the policies of one request: equal match criteria are matched once."""
        plan = self._plan(policy, bindings)
        compiled = plan.compiled
        if plan.skipped is not None:
            return PolicyTuples(policy, compiled, skip=plan.skipped)
        namespaces, mapper = self.cluster.namespaces, self.cluster.mapper
        if plan.constraints is not None:
            match = match_resources(plan.constraints, request, namespaces, mapper, memo, plan.constraints_key)
        else:  # no matchConstraints: policy_matches words the error
            match = policy_matches(policy, request, namespaces, mapper)
        if match.error is not None:
            return PolicyTuples(policy, compiled, error=match.error)
        if not match.matched:
            return PolicyTuples(policy, compiled, skip=match.reason or "policy does not match")
        out = PolicyTuples(  # shared with other policies through the memo: copy before handing them out
            policy,
            compiled,
            matched_kind=match.matched_kind or request.get("kind"),
            matched_resource=match.matched_resource or request.get("resource"),
        )
        if plan.config_error is not None:
            out.error = plan.config_error
            return out
        if plan.static is not None:
            out.bindings = plan.static
            return out
        namespace = str(request.get("namespace") or "")
        for binding, has_match_resources, param_ref in plan.bindings:
            if has_match_resources:  # else the binding matches whatever the policy matches
                bmatch = binding_matches(binding, request, namespaces, mapper, memo)
                if bmatch.error is not None:
                    out.bindings.append(BindingTuples(binding, error=bmatch.error))
                    continue
                if not bmatch.matched:
                    out.bindings.append(BindingTuples(binding, skip=bmatch.reason or "binding does not match"))
                    continue
            params, error = plan.params(binding, param_ref, namespace, self.cluster)
            if error is not None:
                out.bindings.append(BindingTuples(binding, error=error))
            elif not params:
                out.bindings.append(BindingTuples(binding, skip="no params found and parameterNotFoundAction is Allow"))
            else:
                out.bindings.append(BindingTuples(binding, params=params))
        return out


@dataclass
class _Plan:
    """What `resolve` needs of one policy and its bindings that no request changes, computed once."""

    policy: Mapping[str, Any]
    binding_list: list[Mapping]
    compiled: Any
    source: ParamSource | None
    config_error: str | None
    skipped: str | None
    constraints: Mapping[str, Any] | None
    bindings: list[tuple[Mapping, bool, Any]]
    constraints_key: str | None = None  # matching.memo_key(constraints)
    static: list[BindingTuples] | None = None  # the bindings' tuples when no request changes them
    static_match: bool = False  # resolve_static may answer: static, with matchConstraints, no paramKind problem
    collected: dict[tuple[int, str], tuple[list, str | None]] = field(default_factory=dict)
    # What the policy kind prepares once for the static bindings (by a key of its own), kept with them.
    prepared: dict[Any, Any] = field(default_factory=dict)

    def params(
        self, binding: Mapping, param_ref: Any, namespace: str, cluster: ClusterIndex
    ) -> tuple[list[Any], str | None]:
        """`collect_params` of a binding for a request namespace: it reads only the cluster's params, which
        never change, so each (binding, namespace) is collected once (the list is shared: read-only)."""
        key = (id(binding), namespace)
        found = self.collected.get(key)
        if found is None:
            if len(self.collected) >= _PARAMS_KEPT:
                self.collected.clear()
            found = self.collected[key] = collect_params(
                self.compiled.param_kind, self.source, param_ref, namespace, cluster
            )
        return found


def _has_match_resources(binding: Mapping) -> bool:
    """binding_matches' test: a binding without spec.matchResources matches every request of its policy."""
    spec = binding.get("spec") if isinstance(binding, Mapping) else None
    return isinstance(spec, Mapping) and spec.get("matchResources") is not None
