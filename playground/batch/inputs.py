"""What a job runs: the project's documents with only the chosen policies, and the objects of the uploads.

Policies are named as the batch rows count them (evaluator.batch.rows.policy_key): a
ValidatingAdmissionPolicy by its name, every other kind as `Kind/name`. Leaving a policy out also leaves out
the bindings that point at it, so no binding is left referring to a missing policy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings

from evaluator.admission.documents import load_documents
from evaluator.batch import compiled, read_objects
from evaluator.cli.located import problem_text
from evaluator.batch.rows import policy_key
from evaluator.k8s.kinds import (
    ADMISSION_POLICY_KINDS,
    KYVERNO_POLICY_KINDS,
    KYVERNO_MUTATING_POLICY_KINDS,
    KYVERNO_VALIDATING_POLICY_KINDS,
    MUTATING_BINDING,
    MUTATING_POLICY,
    VALIDATING_BINDING,
    VALIDATING_POLICY,
)
from playground.core import edge
from playground.core.errors import ServiceError

WEBHOOK_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"})
POLICY_KINDS = (
    ADMISSION_POLICY_KINDS
    | KYVERNO_POLICY_KINDS
    | KYVERNO_VALIDATING_POLICY_KINDS
    | KYVERNO_MUTATING_POLICY_KINDS
    | WEBHOOK_KINDS
)
BINDING_OF = {VALIDATING_BINDING: VALIDATING_POLICY, MUTATING_BINDING: MUTATING_POLICY}


def _name(obj: dict) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _key(obj: dict) -> str:
    return policy_key({"kind": obj.get("kind"), "policy": _name(obj)})


def project_objects(documents: Iterable[dict]) -> tuple[list[dict], list[dict]]:
    """The objects of the project's document texts, and the problems met reading them (as warnings: the job
    runs with what could be read, as the editor evaluates the readable documents)."""
    objects: list[dict] = []
    problems: list[dict] = []
    for document in documents:
        records, errors = load_documents(document.get("text") or "", document.get("name"), positions=False)
        objects += [r.data for r in records if isinstance(r.data, dict)]
        problems += [{"severity": "warning", **e.to_dict(), "source": document.get("name")} for e in errors]
    return objects, problems


def policies_of(objects: list[dict], kubernetes_version: str | None = None) -> list[dict]:
    """The policies among the objects: [{key, kind, name, error}], in document order; `error` is the first
    error the engine gives loading the policy (a CEL compile error, an invalid spec), else None."""
    errors = load_errors(objects, kubernetes_version)
    return [
        {"key": key, "kind": obj.get("kind"), "name": _name(obj), "error": errors.get(key)}
        for obj in objects
        if obj.get("kind") in POLICY_KINDS and _name(obj)
        for key in [_key(obj)]
    ]


def load_errors(objects: list[dict], kubernetes_version: str | None = None) -> dict[str, str]:
    """Policy key -> the first error the engine reports loading that policy (the policy set is compiled as a
    job compiles it, and kept for the job that follows)."""
    out: dict[str, str] = {}
    for error in compiled(objects, kubernetes_version).errors:
        position = error.get("document")
        if error.get("severity", "error") != "error" or not isinstance(position, int):
            continue
        if 0 <= position < len(objects) and objects[position].get("kind") in POLICY_KINDS:
            where = f"{error['path']}: " if error.get("path") and error["path"] not in problem_text(error) else ""
            out.setdefault(_key(objects[position]), where + problem_text(error))
    return out


def refuse_unloadable(policies: list[dict], keys: list[str]) -> None:
    """A chosen policy that does not load would run as if it admitted everything: refuse, naming it."""
    chosen = set(keys)
    broken = [p for p in policies if p["key"] in chosen and p["error"]]
    if broken:
        first = broken[0]
        others = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        raise ServiceError(
            "invalid_policy",
            f"policies: {first['key']!r} does not load{others}: {first['error']} "
            "(fix it in the editor, or leave it out of the run)",
            path="policies",
        )


def choose(objects: list[dict], chosen: Any) -> tuple[list[dict], list[str]]:
    """(documents for the job, the chosen policy keys). `chosen` None means every policy; an unknown name is
    refused, naming it."""
    available = [p["key"] for p in policies_of(objects)]
    if not available:
        raise ServiceError("no_policies", "the project has no admission policy to run (add one first)")
    keys = available if chosen is None else _chosen_keys(available, chosen)
    return _documents_of(objects, set(keys)), keys


def _chosen_keys(available: list[str], chosen: Any) -> list[str]:
    if not isinstance(chosen, list) or not all(isinstance(k, str) for k in chosen):
        raise edge.invalid("must be an array of policy names", "policies")
    unknown = [k for k in chosen if k not in available]
    if unknown:
        raise ServiceError(
            "unknown_policy",
            f"policies: {unknown[0]!r} is not a policy of the project (it has: {', '.join(available)})",
            path="policies",
        )
    if not chosen:
        raise edge.invalid("choose at least one policy", "policies")
    return [k for k in available if k in set(chosen)]


def _documents_of(objects: list[dict], keep: set[str]) -> list[dict]:
    """Every object but the policies left out and their bindings."""
    left_out = {
        (obj.get("kind"), _name(obj)) for obj in objects if obj.get("kind") in POLICY_KINDS and _key(obj) not in keep
    }
    documents = []
    for obj in objects:
        if obj.get("kind") in POLICY_KINDS and _key(obj) not in keep:
            continue
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        if obj.get("kind") in BINDING_OF and (BINDING_OF[obj["kind"]], spec.get("policyName")) in left_out:
            continue
        documents.append(obj)
    return documents


def _located(error: dict) -> ServiceError:
    where = [str(error.get("source") or "input")]
    if error.get("document") is not None:
        where.append(f"document {error['document']}")
    if error.get("line"):
        where.append(f"line {error['line']}" + (f", column {error['column']}" if error.get("column") else ""))
    return ServiceError(
        "invalid_objects",
        f"{': '.join(where)}: {error.get('message')}",
        document=error.get("source"),
        line=error.get("line"),
        column=error.get("column"),
    )


def read_inputs(inputs: list[tuple[str, bytes | str]]) -> tuple[list[dict], list[dict]]:
    """The objects of every (name, data) upload or pasted text, in order, and their sources
    [{name, objects}]. Any unreadable part refuses the whole job with the first problem located (file,
    document, line): running on part of a dump would give totals that look complete and are not."""
    if not inputs:
        raise edge.invalid("give the objects: upload a file (field `file`) or paste them (field `text`)", "file")
    limit = settings.PLAYGROUND_BATCH_MAX_BYTES
    size = sum(len(data) for _, data in inputs)
    if size > limit:
        raise ServiceError("too_large", f"the objects are {size:,} bytes; the limit is {limit:,} bytes", 413)
    objects: list[dict] = []
    sources = []
    for name, data in inputs:
        if isinstance(data, str) and edge.text_problem(data):
            raise edge.invalid(edge.text_problem(data) or "", "text")
        found, errors = read_objects(data, name)
        errors = [e for e in errors if e.get("severity", "error") == "error"]
        if errors:
            raise _located(errors[0])
        objects += found
        sources.append({"name": name, "objects": len(found)})
        if len(objects) > settings.PLAYGROUND_BATCH_MAX_OBJECTS:
            raise ServiceError(
                "too_large",
                f"more than {settings.PLAYGROUND_BATCH_MAX_OBJECTS:,} objects; run the dump in parts",
                413,
            )
    if not objects:
        raise ServiceError("invalid_objects", "no objects found in the input (is it empty, or only comments?)")
    return objects, sources
