"""The dispatcher's view of request inference, matching, defaulting and REST mapping.

Those live in evaluator.admission.{request,matching,defaults,documents} and evaluator.k8s (owned by
another module's authors); this file is the single place that calls them, so their names can change
without the dispatcher noticing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.admission import documents as _documents
from evaluator.admission import matching as _matching_module
from evaluator.admission import request as _request
from evaluator.admission import validation as _validation
from evaluator.k8s.labels import object_labels, parse_selector  # noqa: F401  (re-exported)
from evaluator.k8s.restmapping import RESTMapper, builtin_mapper

__all__ = ["MatchOutcome", "mapper_for", "scope_of_kind", "normalize_request", "exempt_reason", "definition_matches",
           "binding_matches", "default_and_validate", "load_documents", "load_objects", "deduplicate",
           "parse_selector", "object_labels"]


@dataclass
class MatchOutcome:
    matched: bool
    reason: str = ""
    matched_kind: dict | None = None
    matched_resource: dict | None = None
    error: str | None = None


def _outcome(value: Any) -> MatchOutcome:
    """The matcher's MatchResult already has MatchOutcome's fields; anything else is converted."""
    if hasattr(value, "matched") and hasattr(value, "matched_kind"):
        return value
    get = value.get if isinstance(value, Mapping) else (lambda key, default=None: getattr(value, key, default))
    error = get("error")
    return MatchOutcome(bool(get("matched", False)), str(get("reason", "") or ""), get("matched_kind"),
                        get("matched_resource"), str(error) if error else None)


# -- REST mapping -----------------------------------------------------------------------------------
def mapper_for(crds: list[Mapping], registry: list[Mapping] | None = None) -> tuple[Any, list[str]]:
    """The REST mapper a simulation uses: built-in kinds (or a given registry) plus the CRDs."""
    base = RESTMapper.from_registry(registry) if registry else builtin_mapper()
    return base.with_crds(crds)


def scope_of_kind(mapper: Any, api_version: str, kind: str) -> str | None:
    """"Namespaced" / "Cluster" for a kind the mapper serves at that apiVersion, else None."""
    info = mapper.resource_for(api_version, kind)
    return info.scope if info is not None else None


# -- request inference ------------------------------------------------------------------------------
def normalize_request(request: Any, mapper: Any) -> tuple[dict | None, list[dict], list[str]]:
    """(AdmissionRequest, field errors, warnings) with everything inferable filled in."""
    result = _request.normalize_request(request, mapper)
    return result.request, [_error_dict(e) for e in result.errors], list(result.warnings)


def exempt_reason(request: Mapping[str, Any]) -> str | None:
    return _matching_module.exempt_reason(request)


# -- matching ---------------------------------------------------------------------------------------
def definition_matches(policy: Mapping[str, Any], request: Mapping[str, Any], cluster: Any) -> MatchOutcome:
    """DefinitionMatches: (matched, reason, matched_kind, matched_resource, error) for the policy."""
    return _outcome(_matching_module.policy_matches(policy, request, cluster.namespaces, cluster.mapper))


def binding_matches(binding: Mapping[str, Any], request: Mapping[str, Any], cluster: Any) -> MatchOutcome:
    """BindingMatches: a binding without matchResources matches whatever its policy matched."""
    return _outcome(_matching_module.binding_matches(binding, request, cluster.namespaces, cluster.mapper))


# -- documents --------------------------------------------------------------------------------------
def default_and_validate(document: Mapping[str, Any], compile_check: Any = None) -> tuple[Mapping[str, Any], list[dict], list[dict]]:
    """(defaulted document, field errors, tolerated deviations) as `kubectl apply` would meet them;
    `compile_check(expression, context, has_params)` makes non-compiling expressions errors too."""
    prepared = _validation.prepare(document, compile_check)
    return prepared.object, [_error_dict(e) for e in prepared.errors], [_error_dict(w) for w in prepared.warnings]


def _error_dict(error: Any) -> dict:
    if isinstance(error, Mapping):
        return dict(error)
    as_dict = getattr(error, "to_dict", None)
    if callable(as_dict):
        return as_dict()
    return {"path": getattr(error, "field", getattr(error, "path", "")), "message": str(error)}


def load_documents(text: str, source: str | None = None) -> tuple[list[Any], list[dict]]:
    """(Document records, located errors) from multi-document YAML/JSON text, List kinds flattened."""
    documents, errors = _documents.load_documents(text, source)
    return documents, [_error_dict(e) for e in errors]


def load_objects(objects: list, source: str | None = None) -> tuple[list[Any], list[dict]]:
    documents, errors = _documents.load_objects(objects, source)
    return documents, [_error_dict(e) for e in errors]


def deduplicate(documents: list[Any]) -> tuple[list[Any], list[dict]]:
    """Later documents with the same identity replace earlier ones (a second `kubectl apply`)."""
    index = _documents.index_documents(documents)
    kept = {id(d) for role in ("validating_policies", "validating_bindings", "mutating_policies",
                               "mutating_bindings", "crds", "rbac", "params") for d in getattr(index, role)}
    return [d for d in documents if id(d) in kept], list(index.warnings)
