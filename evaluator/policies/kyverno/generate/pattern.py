"""One generate pattern (`data`, `clone` or `cloneList`) made into objects, as Kyverno's background controller
does it (pkg/background/generate/generator.go, data.go, clone.go): load the context, check the preconditions,
substitute variables in the whole pattern, then create the target, or update it when it exists, the rule
synchronizes and it differs. Every failure is a `GenerateError` carrying Kyverno's message."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from evaluator.k8s.names import is_dns1123_subdomain
from evaluator.k8s.restmapping import guess_resource

from .. import conditions
from ..context import Context, ContextError
from ..context_entries import ContextLoader
from ..variables import SubstitutionError, substitute_all
from . import labels
from .store import Store, Target, kind_of

CREATE, UPDATE, DELETE = "create", "update", "delete"
DOWNSTREAM, SOURCE = "downstream", "source"
_PATTERN_KEYS = ("apiVersion", "kind", "name", "namespace", "data", "clone", "cloneList")
# fields the API server sets: a downstream that differs only there is in sync
_SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink")


class GenerateError(Exception):
    """Kyverno's message for a failed generation, with the objects already written before it failed."""

    def __init__(self, message: str, objects: list | None = None) -> None:
        super().__init__(message)
        self.objects = objects or []


@dataclass
class Generation:
    """One rule generating for one trigger: what it writes goes to `objects` and into `store`."""

    policy: dict
    rule: dict
    trigger: dict
    store: Store
    loader: ContextLoader
    objects: list = field(default_factory=list)

    @property
    def rule_name(self) -> str:
        return str(self.rule.get("name", ""))

    @property
    def synchronize(self) -> bool:
        return bool((self.rule.get("generate") or {}).get("synchronize"))

    def record(self, action: str, obj: dict, role: str = DOWNSTREAM, source: Target | None = None) -> None:
        entry = {
            "action": action,
            "role": role,
            "policy": str((self.policy.get("metadata") or {}).get("name", "")),
            "rule": self.rule_name,
            "object": copy.deepcopy(obj),
        }
        if source is not None:
            entry["source"] = {"kind": source.kind, "namespace": source.namespace, "name": source.name}
        self.objects.append(entry)


def generate(gen: Generation, ctx: Context, entries: list, preconditions: object, pattern: dict) -> None:
    """generator.generate: the objects of one pattern for the trigger in `ctx`."""
    try:
        gen.loader.load(ctx, entries or [])
    except ContextError as err:
        raise GenerateError(f"failed to load context: {err}") from None
    try:
        passed, _ = conditions.evaluate_conditions(ctx, preconditions)
    except conditions.ConditionError as err:
        raise GenerateError(f"failed to evaluate preconditions: {err}") from None
    if not passed:
        return
    try:
        resolved = substitute_all(ctx, {k: pattern[k] for k in _PATTERN_KEYS if k in pattern})
    except (SubstitutionError, ContextError) as err:
        raise GenerateError(str(err)) from None
    if not isinstance(resolved, dict):
        raise GenerateError("invalid generate pattern")
    target = _target(resolved)
    for action, tgt, data, source in _responses(gen, target, resolved):
        if action == UPDATE and data is None:
            return
        _apply(gen, action, tgt, data, source)


def _text(value: object, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise GenerateError(
            f"json: cannot unmarshal {type(value).__name__} into Go struct field ResourceSpec.{key} of type string"
        )
    return value


def _target(resolved: dict) -> Target:
    return Target(*(_text(resolved.get(k), k) for k in ("apiVersion", "kind", "namespace", "name")))


def _responses(gen: Generation, target: Target, resolved: dict) -> list[tuple[str, Target, dict | None, Target | None]]:
    clone = resolved.get("clone") or {}
    clone_list = resolved.get("cloneList") or {}
    if isinstance(clone, dict) and clone.get("name"):
        source = Target(target.api_version, target.kind, _text(clone.get("namespace"), "namespace"), str(clone["name"]))
        return _clone(gen, target, source)
    if isinstance(clone_list, dict) and clone_list.get("kinds"):
        return _clone_list(gen, target.namespace, clone_list)
    return _data(gen, target, resolved.get("data"))


def _data(gen: Generation, target: Target, data: object) -> list:
    """manageData: create the target, or (synchronize) update it with the data."""
    if data is None:
        return []
    if not isinstance(data, dict):
        raise GenerateError(f"failed to convert data to map: unexpected type {type(data).__name__}")
    existing = gen.store.get(target.api_version, target.kind, target.namespace, target.name)
    if existing is None:
        return [(CREATE, target, copy.deepcopy(data), None)]
    if not gen.synchronize:
        return []
    return [(UPDATE, target, copy.deepcopy(data), None)]


def _not_found(source: Target) -> str:
    group = source.api_version.split("/")[0] if "/" in source.api_version else ""
    resource = guess_resource(source.kind) + (f".{group}" if group else "")
    return f'{resource} "{source.name}" not found'


def _clone(gen: Generation, target: Target, source: Target) -> list:
    """manageClone: a copy of the source (its server fields dropped, where it came from in its labels)."""
    if source.namespace == target.namespace and source.name == target.name:
        return []  # self-clone
    found = gen.store.get(source.api_version, source.kind, source.namespace, source.name)
    if found is None:
        raise GenerateError(f"source resource {target} not found: {_not_found(source)}")
    if labels.tag_source(found):
        gen.record(UPDATE, found, SOURCE)
        gen.store.put(found)
    clone = copy.deepcopy(found)
    labels.add_source_labels(clone)
    meta = clone.setdefault("metadata", {})
    if (meta.get("namespace") or "") != target.namespace and meta.get("ownerReferences") is not None:
        meta.pop("ownerReferences", None)
    for key in ("uid", "selfLink", "creationTimestamp", "managedFields", "resourceVersion"):
        meta.pop(key, None)
    existing = gen.store.get(target.api_version, target.kind, target.namespace, target.name)
    if existing is None:
        return [(CREATE, target, clone, source)]
    return [(UPDATE, target, clone, source)]


def _clone_list(gen: Generation, target_namespace: str, clone_list: dict) -> list:
    """manageCloneList: every object of the kinds in the source namespace that the selector picks."""
    out: list = []
    source_ns = _text(clone_list.get("namespace"), "namespace")
    for text in clone_list.get("kinds") or []:
        api_version, kind = kind_of(str(text))
        for source in gen.store.select(api_version, kind, source_ns, clone_list.get("selector")):
            meta = source.get("metadata") or {}
            target = Target(str(source.get("apiVersion", "")), kind, target_namespace, str(meta.get("name", "")))
            if (meta.get("namespace") or "") == target_namespace:
                continue  # self-clone
            src = Target(target.api_version, kind, str(meta.get("namespace") or ""), target.name)
            out += _clone(gen, target, src)
    return out


def _name_problem(obj: dict, target: Target) -> str | None:
    """What the API server would answer to an object with this name."""
    kind = obj.get("kind") or target.kind
    if not target.name:
        return f'{kind} "" is invalid: metadata.name: Required value: name or generateName is required'
    errs = is_dns1123_subdomain(target.name)
    if errs:
        return f'{kind} "{target.name}" is invalid: metadata.name: Invalid value: "{target.name}": {"; ".join(errs)}'
    return None


def _apply(gen: Generation, action: str, target: Target, data: dict | None, source: Target | None) -> None:
    obj = copy.deepcopy(data or {})
    meta = obj.get("metadata")
    meta = obj["metadata"] = dict(meta) if isinstance(meta, dict) else {}
    for key, value in (("name", target.name), ("namespace", target.namespace)):
        if value:
            meta[key] = value
        else:
            meta.pop(key, None)
    if not obj.get("kind"):
        obj["kind"] = target.kind
    if target.api_version:
        obj["apiVersion"] = target.api_version
    problem = _name_problem(obj, target)
    if problem is not None:
        raise GenerateError(problem)
    labels.manage(obj, gen.trigger, gen.policy, gen.rule_name)
    existing = gen.store.get(target.api_version, target.kind, target.namespace, target.name)
    if action == CREATE or existing is None:
        meta.pop("resourceVersion", None)
        if existing is None:
            gen.record(CREATE, obj, source=source)
            gen.store.put(obj)
        return
    if not gen.synchronize or _in_sync(obj, existing):
        return
    gen.record(UPDATE, obj, source=source)
    gen.store.put(obj)


def _without_server_fields(obj: dict) -> dict:
    out = copy.deepcopy(obj)
    out.pop("status", None)
    meta = out.get("metadata") or {}
    for key in _SERVER_FIELDS:
        meta.pop(key, None)
    return out


def _in_sync(new: dict, existing: dict) -> bool:
    return _without_server_fields(new) == _without_server_fields(existing)
