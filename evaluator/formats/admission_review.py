"""AdmissionReviews (`admission.k8s.io/v1`), the webhook exchange of the API server.

Import: an AdmissionReview or a bare AdmissionRequest as JSON or YAML, e.g. copied from a webhook's log, or
several (a JSON array or a `---` stream): one request each, whose text is the review (the engine reads
reviews as they are); a review with a `response` also gives the expected outcome (its `allowed`), so a
logged decision becomes a test.
Export: each request of a project run through the engine and written as the AdmissionReview a webhook
would have been sent and answered: the completed `request` (uid, kind, resource, userInfo, the object as
admitted) and the API server's `response` (allowed, status, warnings, audit annotations, patch). One
request gives one review, several a JSON array; importing the export gives the same requests and outcomes.
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.formats.bounded_yaml import FormatError, dump, load_all
from evaluator.json_safe import json_safe

API_VERSION = "admission.k8s.io/v1"


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


def _entry(data: Any, source: str) -> dict:
    request = _request_of(data, source)
    expected = None
    response = data.get("response") if isinstance(data, dict) else None
    if isinstance(response, dict) and isinstance(response.get("allowed"), bool):
        expected = {"allowed": response["allowed"]}
    review = (
        {k: v for k, v in data.items() if k != "response"}
        if data is not request
        else {"apiVersion": API_VERSION, "kind": "AdmissionReview", "request": request}
    )
    return {"name": review_name(request), "text": dump(review), "expected": expected}


def import_review(text: str, title: str | None = None, source: str = "review.json") -> dict:
    documents = load_all(text, source)
    if len(documents) == 1 and isinstance(documents[0], list):
        documents = documents[0]  # a JSON array of reviews, as export writes several
    if not documents:
        raise FormatError(f"{source}: no AdmissionReview in it")
    requests = [_entry(d, f"{source}[{i}]" if len(documents) > 1 else source) for i, d in enumerate(documents)]
    return {
        "title": title
        or f"AdmissionReview: {requests[0]['name']}" + (f" (+{len(requests) - 1})" if requests[1:] else ""),
        "description": f"Imported from {source}",
        "documents": [],
        "requests": requests,
    }


def review_of(result: dict) -> dict | None:
    """The AdmissionReview (request and response) of an engine result; None when the request was not one the
    API server could decode (then there is no request to show)."""
    request, answer = result.get("request"), (result.get("response") or {}).get("response")
    if not isinstance(request, dict) or not request or not isinstance(answer, dict):
        return None
    return json_safe({"apiVersion": API_VERSION, "kind": "AdmissionReview", "request": request, "response": answer})


def export_reviews(project: dict) -> tuple[str, list[str]]:
    """The project's requests as AdmissionReviews (JSON), simulated with its Kubernetes release."""
    import evaluator

    try:
        simulation = evaluator.load(
            [d["text"] for d in project.get("documents", [])], kubernetes_version=project.get("kubernetesVersion")
        )
    except ValueError as exc:  # an unsupported Kubernetes release
        raise FormatError(str(exc)) from None
    reviews, warnings = [], []
    for request in project.get("requests", []):
        result = simulation.run(request["text"], type_checks=False, request_name=request["name"])
        review = review_of(result)
        if review is None:
            problem = next((e.get("message") for e in result.get("requestErrors", []) if e.get("message")), "")
            warnings.append(f"request {request['name']!r} is not an admission request ({problem}) and is left out")
            continue
        reviews.append(review)
    if not reviews:
        raise FormatError("no request of the project gives an AdmissionReview")
    return json.dumps(reviews[0] if len(reviews) == 1 else reviews, indent=2) + "\n", warnings
