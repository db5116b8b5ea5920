"""The API server decodes a request's object into its Go type before anything else reads it
(apiserver handlers create.go / update.go, transformDecodeError):

- a value of the wrong JSON type (`replicas: "3"`, a label given as a number), or a quantity or int-or-string
  that does not parse, is a 400 BadRequest, and no admission plugin runs;
- a field the type does not have is dropped, so no policy sees it: with a Warning (`unknown field
  "spec.replica"`) under the request's `fieldValidation: Warn` (the default), silently under `Ignore`, and
  under `Strict` (kubectl's default) the request is a 400 (`strict decoding error: unknown field ...`).

An UPDATE's or DELETE's old object comes from storage, where an object has only its type's fields: one a
sample's old object gives beyond them is dropped too (and named among the request's own warnings). A value
there that its type cannot hold (a timestamp Go cannot parse) is kept as given, and named the same way.

Only built-in kinds have a Go type; a custom resource decodes into unstructured data, and its schema's
pruning and validation come later.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from evaluator.admission.go_decode import (
    WrongType,
    decode_problems,
    strict_decoding_error,
    without_unknown_fields,
)
from evaluator.k8s.object_schema import ObjectSchema, schema_for

# The operations whose object is the body the client sent (a DELETE's or CONNECT's is options).
_DECODED_OPERATIONS = ("CREATE", "UPDATE")


@dataclass(frozen=True)
class Decoding:
    """What decoding did to the request's object: `refusal`, the API server's 400 message (and `path`, where
    in the object, for locating it), or the object as decoded (`object`: a private copy; None when
    unchanged) and the paths of the fields dropped from it with a Warning to the client (`warned`)."""

    refusal: str | None = None
    path: str = ""
    object: Any = None
    warned: tuple[str, ...] = ()
    # The old object as storage holds it (`old_object`, a private copy; None when unchanged) and the paths
    # of the fields dropped from it: a stored object has only its type's fields, so a sample's old object
    # holds one only by a typo, and an UPDATE compared with it would see a difference the cluster never has.
    old_object: Any = None
    old_dropped: tuple[str, ...] = ()
    old_wrong: tuple[WrongType, ...] = ()  # values of the old object no stored object holds (kept as given)


def decode_object(request: Mapping[str, Any]) -> Decoding | None:
    """The request's objects as the API server holds them: the body decoded (a 400, or fields dropped with
    Warnings) and the old object as stored; None when that changes nothing (or they have no Go type)."""
    decoded = _decoded_body(request)
    if decoded is not None and decoded.refusal is not None:
        return decoded
    old = request.get("oldObject")
    objschema = _typed_schema(old) if request.get("operation") in ("UPDATE", "DELETE") else None
    if objschema is None:
        return decoded
    wrong, unknown = decode_problems(old, objschema)
    if wrong:
        return replace(decoded or Decoding(), old_wrong=tuple(wrong))
    if not unknown:
        return decoded
    stored = copy.deepcopy(without_unknown_fields(old, objschema))
    return replace(decoded or Decoding(), old_object=stored, old_dropped=tuple(unknown))


def _typed_schema(obj: Any) -> ObjectSchema | None:
    if not isinstance(obj, Mapping):
        return None
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    objschema = schema_for(api_version, kind)
    return objschema if objschema.typed else None


def _decoded_body(request: Mapping[str, Any]) -> Decoding | None:
    obj = request.get("object")
    objschema = _typed_schema(obj) if request.get("operation") in _DECODED_OPERATIONS else None
    if objschema is None:
        return None
    wrong, unknown = decode_problems(obj, objschema)
    kind, version = obj["kind"], obj["apiVersion"].rpartition("/")[2]
    refused = f'{kind} in version "{version}" cannot be handled as a {kind}: '
    if wrong:
        return Decoding(refused + wrong[0].message, wrong[0].path)
    if not unknown:
        return None
    validation = _field_validation(request)
    if validation == "Strict":
        return Decoding(refused + strict_decoding_error(unknown), unknown[0])
    warned = () if validation == "Ignore" else tuple(unknown)
    return Decoding(object=copy.deepcopy(without_unknown_fields(obj, objschema)), warned=warned)


def _field_validation(request: Mapping[str, Any]) -> str:
    """The request's field validation directive (its options'), Warn when it gives none."""
    options = request.get("options")
    directive = options.get("fieldValidation") if isinstance(options, Mapping) else None
    return directive if directive in ("Strict", "Ignore") else "Warn"
