"""`simulate -f policies.yaml -f request.yaml [--output json|text]`: one request, the full decision.

Every file is read as multi-document YAML. The request is the document that is an AdmissionReview or
AdmissionRequest, else the last document that is not a policy, binding, param-kind CRD, Namespace or RBAC
object (a plain object is a CREATE). `--request FILE` names it explicitly.
Exit status: 0 admitted, 1 denied, 2 unusable input.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evaluator.cli.render import render_result
from evaluator.simulation import simulate

CLUSTER_KINDS = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
                 "MutatingAdmissionPolicyBinding", "CustomResourceDefinition", "Namespace", "Role", "ClusterRole",
                 "RoleBinding", "ClusterRoleBinding"}


def register(commands: Any) -> None:
    parser = commands.add_parser("simulate", help="admit or deny one request against policies",
                                 description=__doc__)
    parser.add_argument("-f", "--filename", action="append", required=True, help="YAML/JSON file (repeatable, - for stdin)")
    parser.add_argument("--request", help="file holding the request (else taken from the -f documents)")
    parser.add_argument("-o", "--output", choices=("json", "text"), default="text")
    parser.set_defaults(handler=run)


def read(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text()


def _is_request(doc: Any) -> bool:
    return isinstance(doc, dict) and (doc.get("kind") == "AdmissionReview" or "operation" in doc
                                      or ("object" in doc and "apiVersion" not in doc))


def split_request(documents: list[Any]) -> tuple[list[Any], Any]:
    """(cluster documents, request) following the rule in the module docstring."""
    for i, doc in enumerate(documents):
        if _is_request(doc):
            return documents[:i] + documents[i + 1:], doc
    for i in range(len(documents) - 1, -1, -1):
        doc = documents[i]
        if isinstance(doc, dict) and doc.get("kind") not in CLUSTER_KINDS and not _is_param(doc, documents):
            return documents[:i] + documents[i + 1:], doc
    return documents, None


def _is_param(doc: dict, documents: list[Any]) -> bool:
    """A document some binding names as its param (so it is cluster state, not the request)."""
    name = (doc.get("metadata") or {}).get("name")
    for other in documents:
        if isinstance(other, dict) and other.get("kind") == "ValidatingAdmissionPolicyBinding":
            ref = (other.get("spec") or {}).get("paramRef") or {}
            if ref.get("name") and ref.get("name") == name:
                return True
    return False


def load_all(paths: list[str]) -> tuple[list[Any], list[dict]]:
    from evaluator.admission.documents import load_documents
    documents, errors = [], []
    for path in paths:
        try:
            text = read(path)
        except OSError as exc:
            errors.append({"severity": "error", "source": path, "message": str(exc)})
            continue
        records, problems = load_documents(text, path)
        documents += [r.data for r in records]
        errors += [{"severity": "error", **p.to_dict()} for p in problems]
    return documents, errors


def run(args: argparse.Namespace) -> int:
    documents, errors = load_all(args.filename)
    if args.request:
        request_docs, request_errors = load_all([args.request])
        errors += request_errors
        request = request_docs[0] if request_docs else None
    else:
        documents, request = split_request(documents)
    if request is None:
        print("error: no request found (give a plain object, an AdmissionRequest or --request FILE)", file=sys.stderr)
        return 2
    result = simulate(documents, request)
    result["errors"] = errors + result["errors"]
    if args.output == "json":
        print(json.dumps(result, indent=2, sort_keys=False))
    else:
        print(render_result(result))
    if result["status"] and result["status"].get("code") in (400, 500):
        return 2
    return 0 if result["allowed"] else 1
