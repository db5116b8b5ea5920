"""The landing page's live example: one gallery example, evaluated on the server when the page is built.

Sending the result with the page puts a real decision on screen at first paint (the issue's "first result
within 1 s"); the page's script then makes the same example editable and re-evaluates as the visitor types.
"""

from __future__ import annotations

from playground.evaluation import service as evaluation_service
from playground.services import example_service
from playground.core.errors import ServiceError


def demo(slug: str) -> dict | None:
    """{"slug", "title", "documents", "requests", "evaluation"} for the example, or None if it is missing."""
    try:
        example = example_service.get_example(slug=slug)
    except ServiceError:
        return None
    documents = [{"id": index, "name": d["name"], "text": d["text"]} for index, d in enumerate(example["documents"])]
    requests = [
        {"id": index, "name": r["name"], "text": r["text"], "expected": r.get("expected")}
        for index, r in enumerate(example["requests"])
    ]
    evaluation = evaluation_service.evaluate(documents, requests)
    return {
        "slug": slug,
        "title": example["title"],
        "description": example["description"],
        "documents": documents,
        "requests": requests,
        "evaluation": evaluation,
    }
