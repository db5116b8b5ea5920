"""Kyverno's CEL libraries for ValidatingPolicy (kyverno/sdk extensions/cel/libs), offline.

They live in their own function registry layered over the Kubernetes one, so they exist in Kyverno
policies only (a ValidatingAdmissionPolicy using `resource.Get` still fails to compile, as on a cluster).
Each context variable (`resource`, `http`, `image`, `globalContext`, `json`, `yaml`) is an opaque value
bound per evaluation to an `OfflineContext`; member functions keep Kyverno's PascalCase and camelCase
names, argument types and error texts (`failed to get resource: ...`, `failed to get image data: ...`).
cel-go's regex extension (`regex.replace`, `regex.extractAll`), which Kyverno's environment adds, is here too.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json as _json
from collections.abc import Callable
from typing import Any

from evaluator.cel.errors import CELEvalError
from evaluator.cel.registry import REGISTRY, Overload, Registry
from evaluator.cel.values import Duration, Timestamp

from .context import LookupError_, OfflineContext
from .image_ref import ImageRef, ImageRefError, parse_reference


class LayeredRegistry(Registry):
    """Kyverno's functions on top of the Kubernetes registry (the base stays untouched)."""

    def __init__(self, base: Registry) -> None:
        super().__init__()
        self.base = base

    def overloads(self, name: str) -> list[Overload]:
        return self._functions.get(name, []) + self.base.overloads(name)

    def names(self) -> list[str]:
        return sorted(set(self._functions) | set(self.base.names()))

    def __contains__(self, name: str) -> bool:
        return name in self._functions or name in self.base


KYVERNO_REGISTRY = LayeredRegistry(REGISTRY)


def function(*signatures: str, cost: int | None = 1):
    def decorate(impl):
        for sig in signatures:
            KYVERNO_REGISTRY.add(sig, impl, cost=cost)
        return impl

    return decorate


def member(signature: str):
    """A context member under both of Kyverno's spellings: `resource.Context.Get(...)` and `...get(...)`."""
    head, paren, rest = signature.partition("(")
    receiver, _, name = head.rpartition(".")
    return function(signature, f"{receiver}.{name[0].lower()}{name[1:]}{paren}{rest}")


# ------------------------------------------------------------------ context values
class _Lookups:
    """A library variable answering from the evaluation's OfflineContext (an opaque CEL value)."""

    def __init__(self, data: OfflineContext):
        self.data = data


class ResourceContext(_Lookups):
    cel_type_name = "resource.Context"

    def __init__(self, data: OfflineContext, namespace: str = ""):
        super().__init__(data)
        self.namespace = namespace


class HTTPContext(_Lookups):
    cel_type_name = "http.Context"


class ImageDataContext(_Lookups):
    cel_type_name = "imagedata.Context"


class GlobalContext(_Lookups):
    cel_type_name = "globalcontext.Context"


class JSONContext:
    cel_type_name = "json.Json"


class YAMLContext:
    cel_type_name = "yaml.Yaml"


class GVR:
    cel_type_name = "resource.GroupVersionResource"

    def __init__(self, api_version: str, resource: str):
        self.api_version, self.resource = api_version, resource


def bindings(data: OfflineContext, policy_namespace: str = "") -> dict[str, Any]:
    """The library variables of one evaluation."""
    return {
        "resource": ResourceContext(data, policy_namespace),
        "http": HTTPContext(data),
        "image": ImageDataContext(data),
        "globalContext": GlobalContext(data),
        "json": JSONContext(),
        "yaml": YAMLContext(),
    }


LIBRARY_VARIABLES = ("resource", "http", "image", "globalContext", "json", "yaml")


def _answer(failure: str, lookup: Callable[..., Any], *args: Any) -> Any:
    """What `lookup(*args)` finds; a failed lookup is the CEL error Kyverno gives (`<failure>: <what is missing>`)."""
    try:
        return lookup(*args)
    except LookupError_ as err:
        raise CELEvalError(f"{failure}: {err.message}") from None


# ------------------------------------------------------------------ resource
def _get(ctx: ResourceContext, api_version: str, resource: str, namespace: str, name: str) -> Any:
    try:
        return dict(ctx.data.get_resource(api_version, resource, namespace, name))
    except LookupError_ as err:
        if err.not_found:
            return None
        raise CELEvalError(f"failed to get resource: {err.message}") from None


def _list(ctx: ResourceContext, api_version: str, resource: str, namespace: str, labels: Any = None) -> Any:
    return _answer("failed to list resource", ctx.data.list_resources, api_version, resource, namespace, labels)


def _bind_is_a_macro(*_: Any) -> Any:
    raise CELEvalError("cel.bind is a macro")  # never called: the compiler expands cel.bind(...)


# Kyverno's environments enable cel-go's ext.Bindings: declaring `cel.bind` here lets the compiler expand
# the macro in Kyverno policies only (a ValidatingAdmissionPolicy keeps the Kubernetes environment).
KYVERNO_REGISTRY.add("cel.bind(dyn, dyn, dyn) -> dyn", _bind_is_a_macro, id="cel_bind")


def _cluster_only(ctx: ResourceContext) -> None:
    if ctx.namespace:
        raise CELEvalError("no such overload")


def _namespaced_only(ctx: ResourceContext) -> None:
    if not ctx.namespace:
        raise CELEvalError("no such overload")


@member("resource.Context.Get(string, string, string, string) -> dyn")
def resource_get(ctx, api_version, resource, namespace, name):
    _cluster_only(ctx)
    return _get(ctx, api_version, resource, namespace, name)


@member("resource.Context.Get(string, string, string) -> dyn")
def resource_get_namespaced(ctx, api_version, resource, name):
    _namespaced_only(ctx)
    return _get(ctx, api_version, resource, ctx.namespace, name)


@member("resource.Context.List(string, string, string) -> dyn")
def resource_list(ctx, api_version, resource, namespace):
    _cluster_only(ctx)
    return _list(ctx, api_version, resource, namespace)


@member("resource.Context.List(string, string, string, map(string, string)) -> dyn")
def resource_list_labels(ctx, api_version, resource, namespace, labels):
    _cluster_only(ctx)
    return _list(ctx, api_version, resource, namespace, labels)


@member("resource.Context.List(string, string) -> dyn")
def resource_list_namespaced(ctx, api_version, resource):
    _namespaced_only(ctx)
    return _list(ctx, api_version, resource, ctx.namespace)


@member("resource.Context.Post(string, string, string, map(string, dyn)) -> dyn")
def resource_post(ctx, api_version, resource, namespace, data):
    raise CELEvalError(
        "failed to create resource: resource.Post creates objects in a cluster; the playground "
        "evaluates offline and creates nothing"
    )


@member("resource.Context.ToGVR(string, string) -> resource.GroupVersionResource")
def resource_to_gvr(ctx, api_version, kind):
    from .context import resource_for

    return GVR(api_version, resource_for(api_version, kind, ctx.data.crd_plurals))


@member("resource.Context.Get(resource.GroupVersionResource, string, string) -> dyn")
def resource_get_gvr(ctx, gvr, namespace, name):
    return _get(ctx, gvr.api_version, gvr.resource, namespace, name)


@member("resource.Context.List(resource.GroupVersionResource, string) -> dyn")
def resource_list_gvr(ctx, gvr, namespace):
    return _list(ctx, gvr.api_version, gvr.resource, namespace)


# ------------------------------------------------------------------ globalContext
def _global(ctx: GlobalContext, name: str, projection: str) -> Any:
    return _answer("failed to get global reference", ctx.data.global_reference, name, projection)


@member("globalcontext.Context.Get(string) -> dyn")
def global_get(ctx, name):
    return _global(ctx, name, "")


@member("globalcontext.Context.Get(string, string) -> dyn")
def global_get_projection(ctx, name, projection):
    return _global(ctx, name, projection)


# ------------------------------------------------------------------ http
def _http(ctx: HTTPContext, method: str, url: str) -> Any:
    return _answer("request failed", ctx.data.http, method, url)


@member("http.Context.Get(string) -> dyn")
def http_get(ctx, url):
    return _http(ctx, "GET", url)


@member("http.Context.Get(string, map(string, string)) -> dyn")
def http_get_headers(ctx, url, headers):
    return _http(ctx, "GET", url)


@member("http.Context.Post(string, dyn) -> dyn")
def http_post(ctx, url, data):
    return _http(ctx, "POST", url)


@member("http.Context.Post(string, dyn, map(string, string)) -> dyn")
def http_post_headers(ctx, url, data, headers):
    return _http(ctx, "POST", url)


@member("http.Context.Client(string) -> http.Context")
def http_client(ctx, _ca_bundle):
    return ctx  # mocks answer whatever client asks


# ------------------------------------------------------------------ image data
@member("imagedata.Context.GetMetadata(string) -> dyn")
def image_get_metadata(ctx, image):
    return _answer("failed to get image data", ctx.data.image_data, image)


# ------------------------------------------------------------------ image references
def _parse(text: str) -> ImageRef:
    try:
        return parse_reference(text)
    except ImageRefError as err:
        raise CELEvalError(str(err)) from None


@function("image(string) -> kyverno.Image", "parseImageReference(string) -> kyverno.Image")
def image_parse(text):
    return _parse(text)


@function("isImage(string) -> bool")
def image_is(text):
    try:
        parse_reference(text)
    except ImageRefError:
        return False
    return True


# kyverno.Image's accessors: method -> (result type, reader of an ImageRef)
_IMAGE_ACCESSORS: dict[str, tuple[str, Callable[[ImageRef], Any]]] = {
    "registry": ("string", lambda ref: ref.registry),
    "repository": ("string", lambda ref: ref.repository),
    "identifier": ("string", lambda ref: ref.identifier),
    "tag": ("string", lambda ref: ref.tag),
    "digest": ("string", lambda ref: ref.digest),
    "containsDigest": ("bool", lambda ref: bool(ref.digest)),
}
for _method, (_result, _read) in _IMAGE_ACCESSORS.items():
    KYVERNO_REGISTRY.add(f"kyverno.Image.{_method}() -> {_result}", _read, cost=1)


# ------------------------------------------------------------------ user
@function(
    "parseServiceAccount(string) -> map(string, string)", "user.parseServiceAccount(string) -> map(string, string)"
)
def parse_service_account(user):
    prefix = "system:serviceaccount:"
    account = {"Name": "", "Namespace": ""}  # a Go struct exposed as a native type: Go field names
    if user.startswith(prefix):
        rest = user[len(prefix) :]
        if ":" in rest:
            account["Namespace"], account["Name"] = rest.split(":", 1)
    return account


# ------------------------------------------------------------------ json / yaml
@function("json.Json.unmarshal(dyn) -> dyn")
def json_unmarshal(ctx, text):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise CELEvalError("no such overload")
    try:
        return _json.loads(text)
    except ValueError as err:
        raise CELEvalError(str(err)) from None


@function("json.Json.marshal(dyn) -> string")
def json_marshal(ctx, value):
    from evaluator.cel import to_json

    return _json.dumps(to_json(value), separators=(",", ":"), sort_keys=True)


_YAML_MAX_NODES = 100_000


def _expanded(value: Any, budget: list[int]) -> Any:
    """A tree copy of parsed YAML (aliases expanded), refusing documents that grow past the node budget."""
    budget[0] -= 1
    if budget[0] < 0:
        raise CELEvalError("failed to parse YAML: the document expands to more than 100000 nodes")
    if isinstance(value, dict):
        return {
            str(k) if not isinstance(k, (str, int, float, bool)) else k: _expanded(v, budget) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_expanded(v, budget) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return value


@function("yaml.Yaml.parse(string) -> dyn")
def yaml_parse(ctx, text):
    """yaml.parse: any YAML value (aliases expanded within a node budget, so alias bombs stop)."""
    import yaml as _yaml

    try:
        value = _yaml.safe_load(text)
    except _yaml.YAMLError as err:
        raise CELEvalError(f"failed to parse YAML: {err}") from None
    return _expanded(value, [_YAML_MAX_NODES])


# ------------------------------------------------------------------ hash
def _hasher(algorithm: str) -> Callable[[str], str]:
    def digest(text: str) -> str:
        return hashlib.new(algorithm, text.encode("utf-8")).hexdigest()

    return digest


# kyverno.hash: each digest under its bare name and, since library version 1.18, under `hash.`
for _algorithm in ("sha1", "sha256", "md5"):
    for _name in (_algorithm, f"hash.{_algorithm}"):
        KYVERNO_REGISTRY.add(f"{_name}(string) -> string", _hasher(_algorithm), cost=1)


# ------------------------------------------------------------------ time
@function("time.now() -> google.protobuf.Timestamp")
def time_now():
    now = _dt.datetime.now(_dt.timezone.utc)
    return Timestamp(int(now.timestamp()) * 1_000_000_000 + now.microsecond * 1000)


@function("time.truncate(google.protobuf.Timestamp, google.protobuf.Duration) -> google.protobuf.Timestamp")
def time_truncate(ts, duration):
    if duration.nanos <= 0:
        return ts
    return Timestamp(ts.nanos - ts.nanos % duration.nanos)


@function("time.toCron(google.protobuf.Timestamp) -> string")
def time_to_cron(ts):
    moment = ts.to_datetime()
    return f"{moment.minute} {moment.hour} {moment.day} {moment.month} {(moment.weekday() + 1) % 7}"


__all__ = ["KYVERNO_REGISTRY", "LIBRARY_VARIABLES", "bindings", "Duration"]


# ------------------------------------------------------------------ regex (cel-go ext.Regex, version 1)
def _regex(pattern: str) -> Any:
    from evaluator.cel.library.regex import compile_pattern

    compiled, error = compile_pattern(pattern)
    if error is not None:
        raise CELEvalError(f"given regex is invalid: {error}")
    return compiled


def _expand(replacement: str, match: Any, groups: int) -> str:
    """cel-go's replacement: `\\1`..`\\9` a group, `\\\\` a backslash; any other escape is an error."""
    out, i = [], 0
    while i < len(replacement):
        char = replacement[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = replacement[i + 1] if i + 1 < len(replacement) else ""
        if nxt == "\\":
            out.append("\\")
        elif nxt.isdigit():
            group = match.group(int(nxt)) if int(nxt) <= groups else None
            out.append(group.decode("utf-8", "surrogatepass") if isinstance(group, bytes) else group or "")
        else:
            raise CELEvalError(f"invalid replacement string: '{replacement}' \\ must be followed by a digit")
        i += 2
    return "".join(out)


@function("regex.replace(string, string, string) -> string", "regex.replace(string, string, string, int) -> string")
def regex_replace(target: str, pattern: str, replacement: str, count: int = -1) -> str:
    compiled = _regex(pattern)
    if count == 0:
        return target
    data = target.encode("utf-8", "surrogatepass")
    out, last, done = [], 0, 0
    for match in compiled.finditer(data):
        if 0 <= count <= done:
            break
        out.append(data[last : match.start()].decode("utf-8", "surrogatepass"))
        out.append(_expand(replacement, match, compiled.groups))
        last = match.end()
        done += 1
    out.append(data[last:].decode("utf-8", "surrogatepass"))
    return "".join(out)


@function("regex.extractAll(string, string) -> list(string)", "regex.extractAll(string, string, int) -> list(string)")
def regex_extract_all(target: str, pattern: str, limit: int = -1) -> list[str]:
    compiled = _regex(pattern)
    if compiled.groups > 1:
        raise CELEvalError(f"regular expression has more than one capturing group: {pattern!r}")
    out: list[str] = []
    for match in compiled.finditer(target.encode("utf-8", "surrogatepass")):
        if 0 <= limit <= len(out):
            break
        raw = match.group(1) if compiled.groups == 1 else match.group(0)
        if raw is not None:
            out.append(raw.decode("utf-8", "surrogatepass"))
    return out
