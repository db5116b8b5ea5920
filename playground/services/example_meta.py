"""What the gallery says about an example besides its content: the group it teaches in, difficulty, the
Kubernetes (and Kyverno) version it needs, and the documentation page a seed example comes from.

The groups are ordered as a newcomer would learn them; a file naming an unknown group or difficulty is an
error (caught by tests/playground/test_examples.py), so the gallery never shows a stray heading.
"""

from __future__ import annotations

import re

GROUPS = [
    ("vap-basics", "VAP basics", "One ValidatingAdmissionPolicy, one binding, one CEL rule: where everyone starts."),
    ("params-bindings", "Params and bindings", "One policy, many bindings: limits that come from parameter objects."),
    ("match-conditions", "Scoping and matchConditions", "Which requests a policy looks at at all."),
    (
        "messages-audit",
        "Messages, warnings and audit",
        "What the user reads, what the audit log keeps, and failure policies.",
    ),
    ("authorizer", "Authorizer and request info", "Decisions that depend on who is asking."),
    ("map", "MutatingAdmissionPolicy", "Changing objects on their way in, with CEL."),
    (
        "kyverno-patterns",
        "Kyverno patterns and anchors",
        "Kyverno's overlay patterns, anchors, deny rules and foreach.",
    ),
    (
        "kyverno-mutate-generate",
        "Kyverno mutate and generate",
        "Kyverno rules that change objects on their way in, and create the objects that go with them.",
    ),
    (
        "kyverno-cel",
        "Kyverno CEL and generated VAPs",
        "Kyverno rules written in CEL, and the ValidatingAdmissionPolicy Kyverno generates.",
    ),
    ("pod-security", "Pod Security", "The Pod Security Standards through Kyverno's podSecurity rule."),
    ("crd-rules", "CRD validation rules", "x-kubernetes-validations on custom resources, their costs and ratcheting."),
    ("webhooks", "Admission webhooks", "Which webhooks the API server calls, and what their answers do."),
    ("workshops", "Bigger projects", "Several policies, bindings and params working together."),
]
GROUP_TITLES = {slug: title for slug, title, _ in GROUPS}
GROUP_BY_TITLE = {title: slug for slug, title, _ in GROUPS}
DIFFICULTIES = ("beginner", "intermediate", "advanced")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")


class ExampleMetaError(ValueError):
    pass


def describe(data: dict) -> dict:
    """The gallery fields of one example file's data (validated)."""
    group = data.get("group") or "VAP basics"
    if group not in GROUP_BY_TITLE:
        raise ExampleMetaError(f"unknown gallery group {group!r}; one of {list(GROUP_BY_TITLE)}")
    difficulty = data.get("difficulty") or "beginner"
    if difficulty not in DIFFICULTIES:
        raise ExampleMetaError(f"unknown difficulty {difficulty!r}; one of {DIFFICULTIES}")
    source = data.get("source")
    if source is not None and not (isinstance(source, dict) and source.get("url", "").startswith("https://")):
        raise ExampleMetaError("source needs {title, url} with an https URL")
    meta = {
        "group": group,
        "groupSlug": GROUP_BY_TITLE[group],
        "difficulty": difficulty,
        "kubernetes": str(data.get("kubernetes") or "1.30"),
    }
    if data.get("kyverno"):
        meta["kyverno"] = str(data["kyverno"])
    if source:
        meta["source"] = {"title": source.get("title") or source["url"], "url": source["url"]}
    return meta


def search_words(example: dict) -> str:
    """The distinct words of an example's documents and requests, for the gallery's content search."""
    texts = [item.get("text", "") for key in ("documents", "requests") for item in example.get(key) or []]
    words = dict.fromkeys(match.group(0) for text in texts for match in _WORD.finditer(text))
    return " ".join(words)
