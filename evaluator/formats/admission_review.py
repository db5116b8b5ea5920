"""An AdmissionReview (or a bare AdmissionRequest) as JSON or YAML, e.g. copied from a webhook's log.

Import gives one request whose text is the review (the engine reads reviews as they are); a review with a
`response` also gives the expected outcome (its `allowed`), so a logged decision becomes a test."""

from __future__ import annotations

from typing import Any

from evaluator.formats.bounded_yaml import FormatError, dump, load_one


def _request_of(data: Any, source: str) -> dict:
    if isinstance(data, dict) and data.get("kind") == "AdmissionReview":
        request = data.get("request")
    else:
        request = data
    if not isinstance(request, dict) or not request.get("operation") or not isinstance(request.get("kind"), dict):
        raise FormatError(
            f"{source}: not an AdmissionReview or AdmissionRequest (request.operation and request.kind are needed)"
        )
    return request


def review_name(request: dict) -> str:
    where = "/".join(str(p) for p in (request.get("namespace"), request.get("name")) if p)
    return " ".join(str(p) for p in (request.get("operation"), (request.get("kind") or {}).get("kind"), where) if p)


def import_review(text: str, title: str | None = None, source: str = "review.json") -> dict:
    data = load_one(text, source)
    request = _request_of(data, source)
    expected = None
    response = data.get("response") if isinstance(data, dict) else None
    if isinstance(response, dict) and isinstance(response.get("allowed"), bool):
        expected = {"allowed": response["allowed"]}
    review = (
        {k: v for k, v in data.items() if k != "response"}
        if data is not request
        else {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
    )
    name = review_name(request)
    return {
        "title": title or f"AdmissionReview: {name}",
        "description": f"Imported from {source}",
        "documents": [],
        "requests": [{"name": name, "text": dump(review), "expected": expected}],
    }
