"""What the API server answers: the Status of a denial, the AdmissionReview response, kubectl's text, ferricel.

The denial is `admission.NewForbidden(attrs, errors.New(message))` with the reason and code of the first
denied decision: `<resource>.<group> "<name>" is forbidden: <message>` even when the code is 422.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REASON_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}

VERB_BY_OPERATION = {"CREATE": "create", "UPDATE": "update", "DELETE": "delete", "CONNECT": "connect"}


_NONE: Mapping[str, Any] = {}


def mapping_at(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """`obj[key]` when it is an object, else an empty one (user input may put anything there). A plain dict is
    told by its type first: the ABC check is slow, and this runs several times a request."""
    value = obj.get(key)
    return value if type(value) is dict or isinstance(value, Mapping) else _NONE


def reason_to_code(reason: str) -> int:
    return REASON_CODES.get(reason, 422)


def qualified_resource(request: Mapping[str, Any]) -> tuple[str, str]:
    resource = mapping_at(request, "resource")
    return str(resource.get("group") or ""), str(resource.get("resource") or "")


def request_name(request: Mapping[str, Any]) -> str:
    """extractResourceName: the request name, else the object's name or generateName, else "Unknown"."""
    if request.get("name"):
        return str(request["name"])
    obj = request.get("object")
    if type(obj) is dict or isinstance(obj, Mapping):
        meta = mapping_at(obj, "metadata")
        return str(meta.get("name") or meta.get("generateName") or "Unknown")
    return "Unknown"


_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _go_quote(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:  # the common case: nothing to escape
        return '"' + text + '"'
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def forbidden_text(request: Mapping[str, Any], message: str) -> str:
    """apierrors.NewForbidden's message for the request's resource and name."""
    group, resource = qualified_resource(request)
    name = request_name(request)
    if not group and not resource:
        return f"forbidden: {message}"
    qualified = f"{resource}.{group}" if group else resource
    if not name:
        return f"{qualified} is forbidden: {message}"
    return f"{qualified} {_go_quote(name)} is forbidden: {message}"


def status_for(request: Mapping[str, Any], text: str, reason: str) -> dict[str, Any]:
    """The metav1.Status of a denial worded `text` by its policy kind (code/reason of the decision, causes
    holding the plain text)."""
    reason = reason or "Invalid"
    group, resource = qualified_resource(request)
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": forbidden_text(request, text),
        "reason": reason,
        "details": {"name": request_name(request), "group": group, "kind": resource, "causes": [{"message": text}]},
        "code": reason_to_code(reason),
    }


def admission_review(
    request: Mapping[str, Any],
    allowed: bool,
    status: Mapping[str, Any] | None,
    warnings: list[str],
    audit_annotations: Mapping[str, str],
) -> dict[str, Any]:
    response: dict[str, Any] = {"uid": str(request.get("uid") or ""), "allowed": allowed}
    if status is not None:
        response["status"] = {
            "code": status["code"],
            "reason": status["reason"],
            "message": status["message"],
            "status": "Failure",
        }
    if warnings:
        response["warnings"] = list(warnings)
    if audit_annotations:
        response["auditAnnotations"] = dict(audit_annotations)
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}


def kubectl_text(request: Mapping[str, Any], status: Mapping[str, Any] | None, warnings: list[str]) -> str:
    """What `kubectl create`/`apply` prints: warnings first, then the error line."""
    lines = [f"Warning: {w}" for w in warnings]
    operation = str(request.get("operation") or "CREATE")
    if status is None:
        done = _kubectl_success(request, operation)
        return "\n".join(lines + ([done] if done else []))
    details = mapping_at(status, "details")
    causes = details.get("causes")
    if (
        status.get("reason") == "Invalid"
        and causes
        and all((type(c) is dict or isinstance(c, Mapping)) and c.get("field") for c in causes)
    ):
        lines.append(_invalid_text(details))  # kubectl's checkErr for IsInvalid (object validation errors)
        return "\n".join(lines)
    # kubectl's StandardErrorMessage: "Error from server (Reason): ..." only when the Status has a reason.
    prefix = f"Error from server ({status['reason']}): " if status.get("reason") else "Error from server: "
    if operation == "CREATE":
        lines.append(f'{prefix}error when creating "STDIN": {status["message"]}')
    else:
        lines.append(f"{prefix}{status['message']}")
    return "\n".join(lines)


def _invalid_text(details: Mapping[str, Any]) -> str:
    """`The <Kind> "<name>" is invalid: <cause>`, or one `* <cause>` line per cause when there are several."""
    causes = list(
        dict.fromkeys(
            f"{c.get('field')}: {c.get('message')}" for c in details.get("causes") or () if isinstance(c, Mapping)
        )
    )
    head = f'The {details.get("kind")} "{details.get("name")}" is invalid'
    if len(causes) == 1:
        return f"{head}: {causes[0]}"
    return f"{head}: \n" + "\n".join(f"* {c}" for c in causes)


def _kubectl_success(request: Mapping[str, Any], operation: str) -> str | None:
    """kubectl's line for an admitted request: `deployment.apps/web created` (its name printer)."""
    kind = mapping_at(request, "kind")
    if not kind.get("kind") or request.get("subResource"):  # kubectl scale/exec... print other lines
        return None
    group = str(kind.get("group") or "")
    kind_text = str(kind["kind"]).lower() + (f".{group}" if group else "")
    name = request_name(request)
    if operation == "CREATE":
        return f"{kind_text}/{name} created"
    if operation == "UPDATE":
        return f"{kind_text}/{name} configured"
    if operation == "DELETE":
        return f'{kind_text} "{name}" deleted'
    return None


def kubectl_create_text(request: Mapping[str, Any], status: Mapping[str, Any] | None) -> str | None:
    """`kubectl create <kind>`'s line, e.g. `error: failed to create deployment: deployments.apps "nginx" ...`."""
    if status is None:
        return None
    kind = mapping_at(request, "kind")
    return f"error: failed to create {str(kind.get('kind') or 'object').lower()}: {status['message']}"


def ferricel(allowed: bool, first_denial: tuple[str, str] | None) -> dict[str, Any]:
    """ferricel's evaluate() shape: {accepted} or {accepted, message, code} (message of the validation)."""
    if allowed or first_denial is None:
        return {"accepted": True}
    message, reason = first_denial
    return {"accepted": False, "message": message, "code": reason_to_code(reason or "Invalid")}


TRUNCATE_AT_TOTAL_RUNES = 4 * 1024
TRUNCATE_ITEM_RUNES = 256


def client_warnings(warnings: list[str]) -> list[str]:
    """The Warning headers the client receives (apiserver's warning recorder): empty and duplicate texts
    dropped; once the total passes 4096 characters every warning is cut to 256 characters, and warnings
    that arrive after the cut total is reached again are dropped."""
    ordered: list[str] = []
    written, truncating = 0, False
    sent: list[str] = []
    for text in warnings:
        if not text or text in ordered:
            continue
        if truncating and written >= TRUNCATE_AT_TOTAL_RUNES:
            continue
        ordered.append(text)
        item = text[:TRUNCATE_ITEM_RUNES] if truncating else text
        if written + len(item) <= TRUNCATE_AT_TOTAL_RUNES or truncating:
            written += len(item)
            sent.append(item)
            continue
        truncating, written, sent = True, 0, []
        for previous in ordered:
            cut = previous[:TRUNCATE_ITEM_RUNES]
            written += len(cut)
            sent.append(cut)
    return sent
