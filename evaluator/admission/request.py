"""Turn what a user typed into a complete ``admission.k8s.io/v1`` AdmissionRequest.

Accepted inputs: a full AdmissionReview (``{"kind": "AdmissionReview", "request": {...}}``), an
AdmissionRequest (partial is fine), or a plain object (``apiVersion``/``kind`` strings and no
``object`` key), which is a CREATE of that object. Everything a user would not want to type is
inferred the way the API server would fill it: kind/resource/scope from the object through the REST
mapping, name and namespace from the object (oldObject for DELETE), the operation from which objects
are present, a default user, a deterministic uid, requestKind/requestResource, dryRun and options.
Problems are returned as field errors, never raised.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from evaluator import shortcuts
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.restmapping import GVK, GVR, RESTMapper, builtin_mapper, guess_resource, parse_api_version

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
DEFAULT_USER = {"username": "kubernetes-admin", "groups": ["kubeadm:cluster-admins", "system:authenticated"]}
DEFAULT_NAMESPACE = "default"
_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}
_MEMO_SIZE = 1024
# The namespace of the deterministic uids (uuid5 of the request as sorted JSON).
UID_NAMESPACE = uuid.UUID("6f1c7e0a-3b0e-4c4e-9a57-2d2f7f2c9b10")


@dataclass
class NormalizedRequest:
    """``request`` is the full AdmissionRequest (None when the input is unusable).

    ``inferred`` names the fields we filled in; ``warnings`` explain guesses (an unknown kind);
    ``errors`` are field errors (``FieldError``) with paths rooted at ``request``.
    """

    request: dict | None
    errors: list[fe.FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    inferred: list[str] = field(default_factory=list)
    namespaced: bool | None = None

    @property
    def ok(self) -> bool:
        return self.request is not None and not self.errors

    def to_dict(self) -> dict:
        return {
            "request": self.request,
            "errors": [e.to_dict() for e in self.errors],
            "warnings": list(self.warnings),
            "inferred": list(self.inferred),
            "namespaced": self.namespaced,
        }


def is_plain_object(data: Any) -> bool:
    """A Kubernetes object rather than an AdmissionRequest/AdmissionReview."""
    return (
        (type(data) is dict or isinstance(data, Mapping))
        and isinstance(data.get("kind"), str)
        and "apiVersion" in data
        and data.get("kind") != "AdmissionReview"
        and "object" not in data
        and "request" not in data
    )


def extract_request(data: Any) -> tuple[dict | None, str, list[fe.FieldError]]:
    """The raw AdmissionRequest dict inside whatever was given, the path prefix, and shape errors."""
    if not (type(data) is dict or isinstance(data, Mapping)):
        return None, "request", [fe.invalid("request", type(data).__name__, "must be an object")]
    if data.get("kind") == "AdmissionReview" or ("request" in data and "apiVersion" in data):
        inner = data.get("request")
        if not (type(inner) is dict or isinstance(inner, Mapping)):
            return None, "request", [fe.required("request", "an AdmissionReview needs a request")]
        return dict(inner), "request", []
    if is_plain_object(data):
        return {"object": dict(data)}, "request", []
    return dict(data), "request", []


def normalize_request(data: Any, mapper: RESTMapper | None = None, *, copy_objects: bool = True) -> NormalizedRequest:
    """Complete an admission request; see the module docstring for what is inferred. `copy_objects=False`
    leaves `object`/`oldObject` shared with `data` below their top level: for a caller that copies them
    itself (the simulation copies each once, as defaulting does)."""
    mapper = mapper or builtin_mapper()
    raw, _, errors = extract_request(data)
    if raw is None:
        return NormalizedRequest(None, errors)
    return _Normalizer(raw, mapper, copy_objects).run()


class _Normalizer:
    out: NormalizedRequest  # the general way's output, made when it starts (the plain way makes its own)

    def __init__(self, raw: dict, mapper: RESTMapper, copy_objects: bool = True):
        self.raw = raw
        self.mapper = mapper
        self.copy_objects = copy_objects

    def _infer(self, name: str) -> None:
        self.out.inferred.append(name)

    def _err(self, error: fe.FieldError) -> None:
        self.out.errors.append(error)

    def run(self) -> NormalizedRequest:
        plain = self._plain() if shortcuts.ON else None
        return plain if plain is not None else self._general()

    def _general(self) -> NormalizedRequest:
        self.out = NormalizedRequest(None)
        raw = self.raw
        obj, old = self._object("object"), self._object("oldObject")
        operation = self._operation(obj, old)
        source_key = _source_key(obj, old, operation)
        source = obj if source_key == "object" else old
        sub_resource = raw.get("subResource") or ""
        if not isinstance(sub_resource, str):
            self._err(fe.invalid("request.subResource", str(sub_resource), "must be a string"))
            sub_resource = ""
        resource, kind, namespaced = self._resource_and_kind(source, source_key, sub_resource)
        name = self._name(source)
        namespace = self._namespace(source, resource, namespaced, operation, sub_resource, name)
        if resource is None or kind is None or operation is None:
            return self.out
        request = {
            "uid": raw.get("uid") or "",
            "kind": kind.to_dict(),
            "resource": resource.to_dict(),
            "subResource": sub_resource,
            "requestKind": self._dict_or(raw.get("requestKind"), kind.to_dict(), "requestKind"),
            "requestResource": self._dict_or(raw.get("requestResource"), resource.to_dict(), "requestResource"),
            "requestSubResource": raw.get("requestSubResource", sub_resource) or "",
            "name": name,
            "namespace": namespace,
            "operation": operation,
            "userInfo": self._user_info(),
            "object": obj,
            "oldObject": old,
            "dryRun": bool(raw.get("dryRun", False)),
            "options": self._options(operation),
        }
        if "dryRun" not in raw:
            self._infer("dryRun")
        if not request["uid"]:
            request["uid"] = _deterministic_uid(request)
            self._infer("uid")
        self.out.request = request
        self.out.namespaced = namespaced
        return self.out

    # --- the common request: only the uid, the operation and the objects given ----------------
    def _plain(self) -> NormalizedRequest | None:
        """`_general`'s answer for a request of at most `uid`, `operation`, `object` and `oldObject` whose kind
        was inferred without error before: everything but the uid, name, namespace and objects is the same for
        every such request of a kind and operation (a `_Template`), and so is most of the inferred uid's JSON.
        None: take the general way (which records the template for the next request)."""
        shape = self._plain_shape()
        if shape is None:
            return None
        obj, old, source, operation, operation_given, uid = shape
        key = ("plain-request", source["apiVersion"], source["kind"], operation, operation_given, bool(uid))
        template = self.mapper.memo.get(key)
        if template is None:
            return self._remember_template(key)
        if self.copy_objects:
            obj = None if obj is None else copy.deepcopy(obj)
            old = None if old is None else copy.deepcopy(old)
        else:
            obj = None if obj is None else dict(obj)
            old = None if old is None else dict(old)
        return template.normalized(source, operation, obj, old, uid)

    def _plain_shape(self) -> tuple[dict | None, dict | None, dict, str, bool, str] | None:
        """(object, oldObject, the object the request is about, operation, whether it was given, the uid given
        or "") of a plain request (see `_plain`), or None."""
        raw = self.raw
        if not raw.keys() <= _PLAIN_KEYS:
            return None
        uid = raw.get("uid") or ""
        if type(uid) is not str:  # kept as given by the general way
            return None
        obj, old = raw.get("object"), raw.get("oldObject")
        if (obj is not None and type(obj) is not dict) or (old is not None and type(old) is not dict):
            return None
        operation = raw.get("operation")
        operation_given = not (operation is None or operation == "")
        if not operation_given:
            operation = _inferred_operation(obj, old)
        source = obj if _source_key(obj, old, operation) == "object" else old
        if source is None or type(operation) is not str:
            return None
        if type(source.get("apiVersion")) is not str or type(source.get("kind")) is not str:
            return None
        return obj, old, source, operation, operation_given, uid

    def _remember_template(self, key: tuple) -> NormalizedRequest:
        """`_general`'s answer, and what it inferred as the template of requests like this one (when it
        raised no error)."""
        out = self._general()
        if out.request is not None and not out.errors:
            memo = self.mapper.memo
            if len(memo) >= _MEMO_SIZE:  # kinds come from user input: a bound, not a leak
                memo.clear()
            memo[key] = _Template(out)
        return out

    # --- pieces ------------------------------------------------------------------------------
    def _object(self, key: str) -> dict | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not (type(value) is dict or isinstance(value, Mapping)):
            self._err(fe.invalid(f"request.{key}", type(value).__name__, "must be an object or null"))
            return None
        return copy.deepcopy(dict(value)) if self.copy_objects else dict(value)

    def _operation(self, obj: dict | None, old: dict | None) -> str | None:
        operation = self.raw.get("operation")
        if operation is None or operation == "":
            self._infer("operation")
            inferred = _inferred_operation(obj, old)
            if inferred is not None:
                return inferred
            self._err(
                fe.required(
                    "request.object",
                    "an object (CREATE), object and oldObject (UPDATE) "
                    "or oldObject (DELETE) is needed to infer the operation",
                )
            )
            return None
        if operation not in OPERATIONS:
            self._err(fe.not_supported("request.operation", operation, list(OPERATIONS)))
            return None
        return operation

    def _resource_and_kind(
        self, source: dict | None, source_key: str, sub_resource: str
    ) -> tuple[GVR | None, GVK | None, bool | None]:
        """`_infer_resource_and_kind`, remembered per mapping for the common request (neither resource nor
        kind given, an object with text apiVersion and kind) when it raised no error: a batch of one kind
        asks the mapping once. The same inferred names and warnings are recorded on every request."""
        if not shortcuts.ON or "resource" in self.raw or "kind" in self.raw or type(source) is not dict:
            return self._infer_resource_and_kind(source, source_key, sub_resource)
        api_version, kind = source.get("apiVersion"), source.get("kind")
        if type(api_version) is not str or type(kind) is not str:
            return self._infer_resource_and_kind(source, source_key, sub_resource)
        key = ("request-kind", api_version, kind, sub_resource)
        memo = self.mapper.memo
        hit = memo.get(key)
        if hit is None:
            out = self.out
            errors, inferred, warnings = len(out.errors), len(out.inferred), len(out.warnings)
            answer = self._infer_resource_and_kind(source, source_key, sub_resource)
            if len(out.errors) != errors:
                return answer
            if len(memo) >= _MEMO_SIZE:  # kinds come from user input: a bound, not a leak
                memo.clear()
            hit = memo[key] = (answer, tuple(out.inferred[inferred:]), tuple(out.warnings[warnings:]))
            return answer
        answer, inferred_names, warnings_added = hit
        self.out.inferred.extend(inferred_names)
        self.out.warnings.extend(warnings_added)
        return answer

    def _infer_resource_and_kind(
        self, source: dict | None, source_key: str, sub_resource: str
    ) -> tuple[GVR | None, GVK | None, bool | None]:
        resource = _given(self.raw.get("resource"), GVR)
        kind = _given(self.raw.get("kind"), GVK)
        if resource is not None and not resource.resource:
            self._err(fe.required("request.resource.resource"))
            resource = None
        object_gvk = self._object_gvk(source, source_key, quiet=resource is not None)
        if resource is None:
            if object_gvk is None:
                if not self.out.errors:
                    self._err(
                        fe.required("request.resource", "give request.resource or an object with apiVersion and kind")
                    )
                return None, kind, None
            resource = self._inferred_resource(object_gvk)
        info = self.mapper.info(resource)
        if sub_resource and self.mapper.info(resource, sub_resource) is None and info is not None:
            self.out.warnings.append(
                f'{resource.resource} has no subresource "{sub_resource}" in '
                f"{resource.group or 'core'}/{resource.version}"
            )
        if kind is None:
            kind = self._inferred_kind(resource, sub_resource, object_gvk)
        return resource, kind, info.namespaced if info is not None else None

    def _inferred_resource(self, object_gvk: GVK) -> GVR:
        """The object's resource by the REST mapping; for a kind it does not know, a guess (with a warning)."""
        self._infer("resource")
        info = self.mapper.resource_for_kind(object_gvk)
        if info is not None:
            return info.gvr
        resource = GVR(object_gvk.group, object_gvk.version, guess_resource(object_gvk.kind))
        self.out.warnings.append(self._unknown_kind_warning(object_gvk, resource))
        return resource

    def _inferred_kind(self, resource: GVR, sub_resource: str, object_gvk: GVK | None) -> GVK | None:
        """The kind of a (resource, subresource) by the REST mapping, else the object's own."""
        self._infer("kind")
        kind = self.mapper.kind_for(resource, sub_resource)
        if kind is None:
            kind = object_gvk
        if kind is None:
            self._err(fe.required("request.kind", f"cannot infer the kind of {resource}"))
        return kind

    def _object_gvk(self, source: dict | None, which: str, quiet: bool = False) -> GVK | None:
        if source is None:
            return None
        api_version, kind = source.get("apiVersion"), source.get("kind")
        if quiet:
            parsed = parse_api_version(api_version)
            return GVK(parsed[0], parsed[1], kind) if parsed and isinstance(kind, str) and kind else None
        if not isinstance(kind, str) or not kind:
            self._err(fe.required(f"request.{which}.kind", "Object 'Kind' is missing"))
            return None
        parsed = parse_api_version(api_version)
        if parsed is None:
            self._err(
                fe.invalid(
                    f"request.{which}.apiVersion",
                    api_version if isinstance(api_version, str) else "",
                    'must be "<group>/<version>" or "v1"',
                )
            )
            return None
        return GVK(parsed[0], parsed[1], kind)

    def _unknown_kind_warning(self, gvk: GVK, guessed: GVR) -> str:
        known = self.mapper.versions_of_kind(gvk.group, gvk.kind)
        hint = f" (known versions: {', '.join(known)})" if known else ""
        return (
            f'no matches for kind "{gvk.kind}" in version "{gvk.api_version}"{hint}; '
            f'assuming resource "{guessed.resource}"'
        )

    def _name(self, source: dict | None) -> str:
        name = self.raw.get("name")
        if isinstance(name, str) and name:
            return name
        self._infer("name")
        return _metadata_text(source, "name")

    def _namespace(
        self,
        source: dict | None,
        resource: GVR | None,
        namespaced: bool | None,
        operation: str | None,
        sub_resource: str,
        name: str,
    ) -> str:
        given = self.raw.get("namespace")
        if isinstance(given, str) and ("namespace" in self.raw):
            if given and namespaced is False and resource is not None and resource.resource != "namespaces":
                self.out.warnings.append(f"{resource.resource} are cluster-scoped; namespace {given!r} is ignored")
                return ""
            return given
        self._infer("namespace")
        namespaces = resource is not None and resource.group == "" and resource.resource == "namespaces"
        return _inferred_namespace(source, namespaces, namespaced, operation, sub_resource, name)

    def _user_info(self) -> dict:
        user = self.raw.get("userInfo")
        if type(user) is dict or (user is not None and isinstance(user, Mapping)):
            return copy.deepcopy(dict(user))
        if user is not None:
            self._err(fe.invalid("request.userInfo", type(user).__name__, "must be an object"))
        self._infer("userInfo")
        return _default_user()

    def _dict_or(self, value: Any, default: dict, name: str) -> dict:
        if type(value) is dict or (value is not None and isinstance(value, Mapping)):
            return dict(value)
        self._infer(name)
        return default  # a fresh dict of the caller's (to_dict)

    def _options(self, operation: str | None) -> dict | None:
        if "options" in self.raw:
            return self.raw["options"]
        self._infer("options")
        kind = _OPTIONS_KIND.get(operation or "")
        return {"apiVersion": "meta.k8s.io/v1", "kind": kind} if kind else None


_PLAIN_KEYS = frozenset(("uid", "operation", "object", "oldObject"))
# The keys of a plain request that are its own containers, made anew for each (see `_Template.normalized`).
_TEMPLATE_FILLED = ("kind", "resource", "requestKind", "requestResource", "userInfo", "options")
# The request keys the uid's sorted JSON writes before and after the ones that differ between plain requests.
_UID_HEAD_KEYS = ("dryRun", "kind")
_UID_MIDDLE_KEYS = ("name", "namespace", "object", "oldObject")
_UID_TAIL_KEYS = (
    "operation",
    "options",
    "requestKind",
    "requestResource",
    "requestSubResource",
    "resource",
    "subResource",
    "uid",
    "userInfo",
)


def _default_user() -> dict:
    """A fresh copy of DEFAULT_USER."""
    return {"username": DEFAULT_USER["username"], "groups": list(DEFAULT_USER["groups"])}


def _given(value: Any, cls: Any) -> Any:
    """A resource or kind the request gives (a mapping), as `cls`; None when it gives none."""
    return cls.from_dict(value) if (type(value) is dict or isinstance(value, Mapping)) else None


def _inferred_operation(obj: dict | None, old: dict | None) -> str | None:
    """The operation of a request that names none, from which objects it has (None: it has neither)."""
    if obj is not None:
        return "UPDATE" if old is not None else "CREATE"
    return "DELETE" if old is not None else None


def _source_key(obj: dict | None, old: dict | None, operation: str | None) -> str:
    """Which object a request is about: the object, but the old one when a DELETE has both, or no object."""
    return "object" if obj is not None and not (operation == "DELETE" and old is not None) else "oldObject"


def _metadata_text(source: Any, key: str) -> str:
    """`metadata[key]` of an object when it is text, else ""."""
    metadata = source.get("metadata") if (type(source) is dict or isinstance(source, Mapping)) else None
    value = metadata.get(key) if (type(metadata) is dict or isinstance(metadata, Mapping)) else None
    return value if isinstance(value, str) else ""


def _inferred_namespace(
    source: Any, namespaces: bool, namespaced: bool | None, operation: str | None, sub_resource: str, name: str
) -> str:
    """The namespace of a request that gives none; `namespaces`: the object is a core Namespace."""
    if namespaces:
        # The URL of an existing namespace (and of its subresources) carries its name as the namespace.
        return name if (operation != "CREATE" or sub_resource) else ""
    if namespaced is False:
        return ""
    namespace = _metadata_text(source, "namespace")
    if namespace:
        return namespace
    return "" if namespaced is None else DEFAULT_NAMESPACE


class _Template:
    """What every plain request of one kind and operation shares (see `_Normalizer._plain`), read from the
    first one's normalized form: the request itself (its keys in their order, private copies of its kind,
    resource and options), the names it inferred and the warnings it had, and the uid's JSON around the
    name, namespace and objects."""

    __slots__ = ("request", "kind", "resource", "options", "inferred", "warnings", "namespaced", "namespaces")
    __slots__ += ("head", "tail")

    def __init__(self, out: NormalizedRequest):
        request = out.request
        self.kind = dict(request["kind"])
        self.resource = dict(request["resource"])
        self.options = None if request["options"] is None else dict(request["options"])
        self.inferred = tuple(out.inferred)
        self.warnings = tuple(out.warnings)
        self.namespaced = out.namespaced
        self.namespaces = self.resource["group"] == "" and self.resource["resource"] == "namespaces"
        # The general way's request with nothing of this one's: `normalized` fills in every key marked None.
        self.request = {**request, "uid": "", "name": None, "namespace": None, "object": None, "oldObject": None}
        self.request.update(dict.fromkeys(_TEMPLATE_FILLED))
        model = {**request, "uid": "", "userInfo": _default_user()}
        head = orjson.dumps({key: model[key] for key in _UID_HEAD_KEYS}, option=_UID_OPTIONS_STR_KEYS)
        tail = orjson.dumps({key: model[key] for key in _UID_TAIL_KEYS}, option=_UID_OPTIONS_STR_KEYS)
        self.head = _UID_PREFIX + head[:-1] + b","
        self.tail = b"," + tail[1:]

    def normalized(
        self, source: dict, operation: str, obj: dict | None, old: dict | None, uid: str = ""
    ) -> NormalizedRequest:
        """The plain request about `source` with these objects (the caller's copies) and `uid` (inferred when
        "": the template is then one of requests that give none)."""
        name = _metadata_text(source, "name")
        request = self.request.copy()
        request["kind"] = self.kind.copy()
        request["resource"] = self.resource.copy()
        request["requestKind"] = self.kind.copy()
        request["requestResource"] = self.resource.copy()
        request["name"] = name
        request["namespace"] = _inferred_namespace(source, self.namespaces, self.namespaced, operation, "", name)
        request["userInfo"] = _default_user()
        request["object"] = obj
        request["oldObject"] = old
        request["options"] = None if self.options is None else self.options.copy()
        request["uid"] = uid or self.uid(request)
        return NormalizedRequest(request, [], list(self.warnings), list(self.inferred), self.namespaced)

    def uid(self, request: dict) -> str:
        """`_deterministic_uid(request)`: only the name, namespace and objects are written, between the
        template's text of the other keys (the same bytes as writing the whole request sorted)."""
        middle = {
            "name": request["name"],
            "namespace": request["namespace"],
            "object": request["object"],
            "oldObject": request["oldObject"],
        }
        try:
            text = orjson.dumps(middle, default=str, option=_UID_OPTIONS_STR_KEYS)
        except TypeError:  # orjson.JSONEncodeError: the longer way words what orjson refuses
            return _deterministic_uid(request)
        return _uid_of(self.head + text[1:-1] + self.tail)


# orjson's sorted JSON; keys that are not text written as text (a Python caller's `{1: "a", "b": "c"}`) by a second
# try with OPT_NON_STR_KEYS, which is slower (the same text when every key is text).
_UID_OPTIONS_STR_KEYS = orjson.OPT_SORT_KEYS
_UID_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
# The standard encoder, for what orjson refuses: integers beyond 64 bits, lone surrogates, and a cyclic request
# (which it words as ValueError, as it always did); unsorted where keys of several types cannot be sorted.
_UID_ENCODER = json.JSONEncoder(sort_keys=True, default=str)
_UID_UNSORTED_ENCODER = json.JSONEncoder(default=str)
_UID_PREFIX = UID_NAMESPACE.bytes


def _deterministic_uid(request: Mapping) -> str:
    """Same request, same uid: keeps simulation output stable (the server would use a random UUID).
    `uuid.uuid5(UID_NAMESPACE, <the request as sorted JSON>)`, computed without building UUID objects. The
    JSON is orjson's (compact; ~10x faster than the standard encoder, whose text is the fallback)."""
    try:
        text = orjson.dumps(request, default=str, option=_UID_OPTIONS_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError: a key that is not text, or what orjson refuses
        text = _uid_text_slow(request)
    return _uid_of(_UID_PREFIX + text)


def _uid_of(text: bytes) -> str:
    """The version-5 UUID of `text` (the uid namespace's bytes, then the request's JSON)."""
    digest = hashlib.sha1(text, usedforsecurity=False).hexdigest()
    # RFC 4122 version 5: the version nibble, then the variant bits (10xx) of the clock_seq_hi byte.
    return f"{digest[:8]}-{digest[8:12]}-5{digest[13:16]}-{_VARIANT[digest[16]]}{digest[17:20]}-{digest[20:32]}"


# The variant's hex digit for each hex digit of the hash there: "89ab"[int(digit, 16) & 3], looked up.
_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def _uid_text_slow(request: Mapping) -> bytes:
    """The uid's JSON of a request with keys that are not text, or with what orjson refuses."""
    try:
        text = orjson.dumps(request, default=str, option=_UID_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError
        try:
            text = _UID_ENCODER.encode(request).encode()
        except TypeError:  # keys of several types (1 and "b") in one object, with what orjson refused
            text = _UID_UNSORTED_ENCODER.encode(request).encode()
    return text
