"""Does a policy's ``matchConstraints`` (or a binding's ``matchResources``) match an admission request?

Follows the API server's ``policy/matching`` + ``webhook/predicates/{rules,namespace,object}`` exactly:
1. namespaceSelector, then objectSelector: a plain non-match stops here; a selector *error* is held
   back and only reported if the resource rules match (so broken selectors never break other requests);
2. excludeResourceRules (with the same matchPolicy) win;
3. resourceRules — an empty list matches everything, Exact matches are preferred, and with
   ``matchPolicy: Equivalent`` equivalent resources are tried (rule by rule, equivalent by equivalent) and
   the request is converted to the matched kind/resource.
Every non-match says why in ``reason``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.k8s.labels import Selector, object_labels, parse_selector
from evaluator.k8s.restmapping import GVK, GVR, RESTMapper, builtin_mapper

NamespaceLookup = Callable[[str], "Mapping | None"]

ADMISSION_CONFIG_RESOURCES = frozenset(
    {
        ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings"),
    }
)
# Not persisted, so the API server excludes them from all admission policies.
NON_PERSISTED_RESOURCES = frozenset(
    {
        ("authentication.k8s.io", "tokenreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
    }
)
NAMESPACES = GVR("", "v1", "namespaces")


@dataclass(frozen=True)
class MatchResult:
    """Outcome of matching one set of criteria against a request.

    ``error`` is set (and ``matched`` False) when the server would fail the match itself: an invalid
    selector (``error_code`` 500, text as ``apierrors.NewInternalError``), a namespace that does not
    exist (404), or an equivalent resource without a kind. The caller applies failurePolicy.
    """

    matched: bool
    reason: str = ""
    matched_kind: dict | None = None
    matched_resource: dict | None = None
    equivalent: bool = False
    error: str | None = None
    error_code: int | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def _no(reason: str) -> MatchResult:
    return MatchResult(False, reason)


def _error(message: str, code: int) -> MatchResult:
    return MatchResult(False, message, error=message, error_code=code)


def exempt_reason(request: Mapping) -> str | None:
    """Why the policy plugins skip this request entirely (seed 001 "API kinds exempt"), or None."""
    resource = GVR.from_dict(request.get("resource"))
    key = (resource.group, resource.resource)
    if key in ADMISSION_CONFIG_RESOURCES:
        return (
            f"{resource.resource}.{resource.group} are exempt from admission policies "
            "(policies cannot govern policy objects)"
        )
    if key in NON_PERSISTED_RESOURCES:
        return f"{resource.resource}.{resource.group} are not persisted and are exempt from admission policies"
    return None


# --------------------------------------------------------------------------- rules
def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _fmt(items: list, quote: bool = False) -> str:
    return "[" + " ".join(f'"{i}"' if quote else str(i) for i in items) + "]"


def _wild(items: list) -> frozenset | None:
    """None means "*" (everything); otherwise the accepted values."""
    return None if "*" in items else frozenset(i for i in items if isinstance(i, str))


@dataclass(frozen=True)
class _View:
    """The request fields matching reads, extracted once per request."""

    resource: GVR
    kind: GVK
    sub: str
    namespace: str
    name: str
    operation: str

    @classmethod
    def of(cls, request: Mapping) -> "_View":
        return cls(
            GVR.from_dict(request.get("resource")),
            GVK.from_dict(request.get("kind")),
            request.get("subResource") or "",
            request.get("namespace") or "",
            request.get("name") or "",
            request.get("operation") or "",
        )


@dataclass(frozen=True)
class CompiledRule:
    """A NamedRuleWithOperations prepared for fast, repeated matching (``rules.Matcher``)."""

    raw: Mapping
    scope: Any
    operations: frozenset | None
    groups: frozenset | None
    versions: frozenset | None
    resources: tuple[tuple[str, str], ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, rule: Any) -> "CompiledRule":
        if not isinstance(rule, Mapping):
            return cls({}, None, frozenset(), frozenset(), frozenset(), (), ())
        resources = tuple(r.partition("/")[::2] for r in _as_list(rule.get("resources")) if isinstance(r, str))
        return cls(
            rule,
            rule.get("scope"),
            _wild(_as_list(rule.get("operations"))),
            _wild(_as_list(rule.get("apiGroups"))),
            _wild(_as_list(rule.get("apiVersions"))),
            resources,
            tuple(n for n in _as_list(rule.get("resourceNames")) if isinstance(n, str)),
        )

    def matches(self, view: _View, resource: GVR) -> bool:
        return self.failing(view, resource) is None

    def failing(self, view: _View, resource: GVR) -> str | None:
        """None when the rule matches ``resource`` (the request's or an equivalent), else the first failing
        dimension in the order Go checks them: scope, operation, group, version, resource."""
        scope = self.scope
        if scope is not None and scope != "*" and not _scope_matches(scope, view, resource):
            return "scope"
        if self.operations is not None and view.operation not in self.operations:
            return "operation"
        if self.groups is not None and resource.group not in self.groups:
            return "group"
        if self.versions is not None and resource.version not in self.versions:
            return "version"
        for res, sub in self.resources:
            if (res == "*" or res == resource.resource) and (sub == "*" or sub == view.sub):
                return None
        return "resource"

    def mismatch(self, view: _View, resource: GVR) -> str | None:
        """None when the rule matches ``resource``, else why not: the first failing dimension, worded."""
        failing = self.failing(view, resource)
        return None if failing is None else _MISMATCH_TEXT[failing](self, view, resource)

    def name_mismatch(self, view: _View) -> str | None:
        if not self.names or view.name in self.names:
            return None
        return f'name "{view.name}" not in resourceNames {_fmt(list(self.names))}'


def _scope_matches(scope: Any, view: _View, resource: GVR) -> bool:
    if scope == "Namespaced":
        return resource != NAMESPACES and bool(view.namespace)
    if scope == "Cluster":
        return resource == NAMESPACES or not view.namespace
    return False


def _scope_text(rule: CompiledRule, view: _View, resource: GVR) -> str:
    if rule.scope == "Namespaced":
        return "scope Namespaced does not match a cluster-scoped request"
    if rule.scope == "Cluster":
        return "scope Cluster does not match a namespaced request"
    return f'scope "{rule.scope}" matches nothing'


def _resource_text(rule: CompiledRule, view: _View, resource: GVR) -> str:
    requested = f"{resource.resource}/{view.sub}" if view.sub else resource.resource
    return f'resource "{requested}" not in {_fmt(_as_list(rule.raw.get("resources")))}'


# CompiledRule.failing's dimension -> (rule, view, resource) -> why it does not match, as the reason says it
_MISMATCH_TEXT: dict[str, Callable[[CompiledRule, _View, GVR], str]] = {
    "scope": _scope_text,
    "operation": lambda rule, view, _: (
        f"operation {view.operation} not in {_fmt(_as_list(rule.raw.get('operations')))}"
    ),
    "group": lambda rule, _, resource: (
        f'apiGroup "{resource.group}" not in {_fmt(_as_list(rule.raw.get("apiGroups")), True)}'
    ),
    "version": lambda rule, _, resource: (
        f'apiVersion "{resource.version}" not in {_fmt(_as_list(rule.raw.get("apiVersions")), True)}'
    ),
    "resource": _resource_text,
}


def rule_mismatch(rule: Mapping, request: Mapping, resource: GVR) -> str | None:
    """``rules.Matcher.Matches`` for one rule: None when it matches, else the first failing dimension."""
    return CompiledRule.of(rule).mismatch(_View.of(request), resource)


@dataclass(frozen=True)
class _RulesOutcome:
    matched: bool
    resource: GVR | None = None
    kind: GVK | None = None
    equivalent: bool = False
    reasons: tuple[str, ...] = ()
    error: str | None = None


def _match_rules(
    rules: tuple[CompiledRule, ...], match_policy: Any, view: _View, mapper: RESTMapper, explain: bool = True
) -> _RulesOutcome:
    """``matchesResourceRules``: exact pass over all rules first, then equivalents if Equivalent."""
    for rule in rules:
        if rule.matches(view, view.resource) and rule.name_mismatch(view) is None:
            return _RulesOutcome(True, view.resource, view.kind)
    equivalents: list[GVR] = []
    if match_policy == "Equivalent":
        equivalents = [e for e in mapper.equivalent_resources_for(view.resource, view.sub) if e != view.resource]
        found = _match_equivalents(rules, equivalents, view, mapper)
        if found is not None:
            return found
    if not explain:
        return _RulesOutcome(False)
    return _RulesOutcome(False, reasons=_reasons(rules, equivalents, view))


def _match_equivalents(
    rules: tuple[CompiledRule, ...], equivalents: list[GVR], view: _View, mapper: RESTMapper
) -> _RulesOutcome | None:
    """The equivalent pass, rule by rule then equivalent by equivalent; None when none matches."""
    for rule in rules:
        for equivalent in equivalents:
            if not rule.matches(view, equivalent):
                continue
            matched_kind = mapper.kind_for(equivalent, view.sub)
            if matched_kind is None or matched_kind.empty:
                return _RulesOutcome(False, error=f"unable to convert to {equivalent}: unknown kind")
            if rule.name_mismatch(view) is None:
                return _RulesOutcome(True, equivalent, matched_kind, equivalent=True)
    return None


def _reasons(rules: tuple[CompiledRule, ...], equivalents: list[GVR], view: _View) -> tuple[str, ...]:
    """Why no rule matched: each rule's first failing dimension, and the equivalents tried."""
    reasons = []
    for i, rule in enumerate(rules):
        why = rule.mismatch(view, view.resource) or rule.name_mismatch(view) or "matches"
        reasons.append(why if len(rules) == 1 else f"[{i}] {why}")
    if equivalents:
        listed = ", ".join(f"{e.group or 'core'}/{e.version}" for e in equivalents)
        reasons.append(f"nor any equivalent resource ({listed})")
    return tuple(reasons)


def match_rules(rules: list, match_policy: Any, request: Mapping, mapper: RESTMapper) -> _RulesOutcome:
    """Public form of the resource-rule pass over raw rule dicts."""
    return _match_rules(tuple(CompiledRule.of(r) for r in rules), match_policy, _View.of(request), mapper)


# --------------------------------------------------------------------------- selectors
def _namespace_labels(request: Mapping, view: _View, lookup: NamespaceLookup) -> tuple[dict | None, MatchResult | None]:
    """``GetNamespaceLabels``: the Namespace in the request for CREATE/UPDATE of a namespace, else stored."""
    if view.resource.resource == "namespaces" and not view.sub and view.operation in ("CREATE", "UPDATE"):
        obj = request.get("object")
        if not isinstance(obj, Mapping):
            return None, _error("Internal error occurred: object does not implement the Object interfaces", 500)
        return object_labels(obj), None
    namespace = lookup(view.namespace)
    if namespace is None:
        return None, _error(f'namespaces "{view.namespace}" not found', 404)
    return object_labels(namespace), None


def _parsed(selector: Any) -> tuple[Selector | None, str | None]:
    parsed, problem = parse_selector(selector if selector is not None else {})
    return parsed, (f"Internal error occurred: {problem}" if problem else None)


def _match_namespace(
    selector: Selector | None, problem: str | None, request: Mapping, view: _View, lookup: NamespaceLookup
) -> MatchResult:
    if not view.namespace and view.resource.resource != "namespaces":
        return _CLUSTER_SCOPED
    if problem:
        return _error(problem, 500)
    if selector.empty:
        return _YES
    labels, failure = _namespace_labels(request, view, lookup)
    if failure:
        return failure
    if selector.matches(labels):
        return _YES
    return _no(
        f'namespaceSelector does not match namespace "{view.namespace}" (labels {json.dumps(labels, sort_keys=True)})'
    )


def _match_object(selector: Selector | None, problem: str | None, request: Mapping) -> MatchResult:
    if problem:
        return _error(problem, 500)
    if selector.empty:
        return _YES
    for key in ("object", "oldObject"):
        obj = request.get(key)
        if isinstance(obj, Mapping) and selector.matches(object_labels(obj)):
            return _YES
    return _no("objectSelector matches neither the object's nor the oldObject's labels")


_YES = MatchResult(True)
_CLUSTER_SCOPED = MatchResult(True, "cluster-scoped resources always match the namespaceSelector")


# --------------------------------------------------------------------------- criteria
def _lookup_from(namespaces: Mapping | NamespaceLookup | None) -> NamespaceLookup:
    if callable(namespaces):
        return namespaces
    table = namespaces if isinstance(namespaces, Mapping) else {}
    return table.get


@dataclass(frozen=True)
class CompiledCriteria:
    """A MatchResources object (matchConstraints or a binding's matchResources) prepared once and
    matched many times: selectors parsed, rules turned into sets."""

    match_policy: Any
    namespace_selector: Selector | None
    namespace_problem: str | None
    object_selector: Selector | None
    object_problem: str | None
    rules: tuple[CompiledRule, ...]
    exclude: tuple[CompiledRule, ...]
    reads_names: bool = False  # some rule lists resourceNames (request_key then holds the name)

    @classmethod
    def of(cls, criteria: Any) -> "CompiledCriteria":
        criteria = criteria if isinstance(criteria, Mapping) else {}
        rules = tuple(CompiledRule.of(r) for r in _as_list(criteria.get("resourceRules")))
        exclude = tuple(CompiledRule.of(r) for r in _as_list(criteria.get("excludeResourceRules")))
        return cls(
            criteria.get("matchPolicy"),
            *_parsed(criteria.get("namespaceSelector")),
            *_parsed(criteria.get("objectSelector")),
            rules,
            exclude,
            any(rule.names for rule in rules) or any(rule.names for rule in exclude),
        )

    def reads_labels(self) -> bool:
        """Whether matching reads labels (a selector that is not empty, or one that did not parse, whose
        error is the answer): if not, the answer depends only on `request_key`."""
        if self.namespace_problem or self.object_problem:
            return True
        return not (self.namespace_selector.empty and self.object_selector.empty)

    def request_key(self, request: Mapping) -> tuple:
        """Everything `match` reads of a request whose criteria read no labels (`reads_labels` False): the
        resource, kind, subresource and operation, whether it is namespaced, and the name only when a rule
        lists resourceNames. Requests with equal keys get the same answer (for one mapper)."""
        resource, kind = request.get("resource"), request.get("kind")
        if type(resource) is not dict:
            resource = _fields(resource)
        if type(kind) is not dict:
            kind = _fields(kind)
        return (  # _View.of's values, as a flat tuple (no GVR/GVK objects: this runs for every request)
            str(resource.get("group") or ""),
            str(resource.get("version") or ""),
            str(resource.get("resource") or ""),
            str(kind.get("group") or ""),
            str(kind.get("version") or ""),
            str(kind.get("kind") or ""),
            request.get("subResource") or "",
            bool(request.get("namespace")),
            (request.get("name") or "") if self.reads_names else "",
            request.get("operation") or "",
        )

    def match(
        self, request: Mapping, namespaces: Mapping | NamespaceLookup | None = None, mapper: RESTMapper | None = None
    ) -> MatchResult:
        """``Matcher.Matches``."""
        mapper = mapper or builtin_mapper()
        view = _View.of(request)
        ns_result = _match_namespace(
            self.namespace_selector, self.namespace_problem, request, view, _lookup_from(namespaces)
        )
        if not ns_result.matched and ns_result.error is None:
            return ns_result
        obj_result = _match_object(self.object_selector, self.object_problem, request)
        if not obj_result.matched and obj_result.error is None:
            return obj_result

        excluded = _match_rules(self.exclude, self.match_policy, view, mapper, explain=False)
        if excluded.error:
            return _error(excluded.error, 500)
        if excluded.matched:
            return _no("excluded by excludeResourceRules" + (" (equivalent resource)" if excluded.equivalent else ""))

        if not self.rules:
            outcome = _RulesOutcome(True, view.resource, view.kind)
        else:
            outcome = _match_rules(self.rules, self.match_policy, view, mapper)
        if outcome.error:
            return _error(outcome.error, 500)
        if not outcome.matched:
            return _no("no resourceRules matched: " + "; ".join(outcome.reasons))

        for held_back in (ns_result, obj_result):
            if held_back.error:
                return held_back
        return MatchResult(True, "", outcome.kind.to_dict(), outcome.resource.to_dict(), outcome.equivalent)


def _fields(value: Any) -> Mapping:
    """A kind or resource of the request as GVK/GVR.from_dict reads it (anything else: empty)."""
    return value if type(value) is dict or isinstance(value, Mapping) else {}


class _IdentityCache:
    """Compiled forms keyed by object identity (the cache keeps the object alive, so ids stay unique).
    Callers must not mutate a criteria dict after it was first matched."""

    def __init__(self, build: Callable[[Any], Any], size: int = 4096):
        self.build, self.size, self.entries = build, size, {}

    def get(self, obj: Any) -> Any:
        entry = self.entries.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        if len(self.entries) >= self.size:
            self.entries.clear()
        value = self.build(obj)
        self.entries[id(obj)] = (obj, value)
        return value


_COMPILED = _IdentityCache(CompiledCriteria.of)
_CONTENT_KEYS = _IdentityCache(lambda criteria: json.dumps(criteria, sort_keys=True, default=repr))


def compile_criteria(criteria: Any) -> CompiledCriteria:
    """The compiled form of a MatchResources dict (cached by identity)."""
    return _COMPILED.get(criteria)


MatchMemo = dict
"""Match results of one request by criteria content: policies often share their matchConstraints (the same
resourceRules written out in every policy), so one request matches each distinct criteria once. A memo must
only ever see one request, one namespace lookup and one mapper; the results it gives are shared (copy their
kind and resource before handing them out)."""


def memo_key(criteria: Mapping) -> str:
    """What a MatchMemo files the result of `criteria` under (its content; cached by identity): a caller
    holding many criteria may compute it once and pass it to `match_resources`."""
    return _CONTENT_KEYS.get(criteria)


def match_resources(
    criteria: Mapping,
    request: Mapping,
    namespaces: Mapping | NamespaceLookup | None = None,
    mapper: RESTMapper | None = None,
    memo: MatchMemo | None = None,
    key: str | None = None,
) -> MatchResult:
    """``Matcher.Matches`` for a MatchResources object (selectors already defaulted when absent). With a
    `memo`, `key` is `memo_key(criteria)` when the caller has it already."""
    if memo is None:
        return compile_criteria(criteria).match(request, namespaces, mapper)
    if key is None:
        key = _CONTENT_KEYS.get(criteria)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = compile_criteria(criteria).match(request, namespaces, mapper)
    return hit


def policy_matches(
    policy: Mapping,
    request: Mapping,
    namespaces: Mapping | NamespaceLookup | None = None,
    mapper: RESTMapper | None = None,
    memo: MatchMemo | None = None,
) -> MatchResult:
    """``DefinitionMatches``: the policy's ``spec.matchConstraints`` (required)."""
    spec = policy.get("spec") if isinstance(policy, Mapping) else None
    constraints = spec.get("matchConstraints") if isinstance(spec, Mapping) else None
    if not isinstance(constraints, Mapping):
        return _error("policy contained no match constraints, a required field", 500)
    return match_resources(constraints, request, namespaces, mapper, memo)


def binding_matches(
    binding: Mapping,
    request: Mapping,
    namespaces: Mapping | NamespaceLookup | None = None,
    mapper: RESTMapper | None = None,
    memo: MatchMemo | None = None,
) -> MatchResult:
    """``BindingMatches``: no ``spec.matchResources`` matches every request the policy matches."""
    spec = binding.get("spec") if isinstance(binding, Mapping) else None
    resources = spec.get("matchResources") if isinstance(spec, Mapping) else None
    if resources is None:
        return MatchResult(True, "binding has no matchResources", request.get("kind"), request.get("resource"))
    result = match_resources(resources, request, namespaces, mapper, memo)
    if result.matched:
        # The binding never converts the request: only the policy's match decides the kind/resource.
        return MatchResult(True, "", request.get("kind"), request.get("resource"))
    return result
