"""Rule `context` entries, loaded lazily like Kyverno's deferred loaders, from data supplied offline:
variables, ConfigMaps among the documents, values for API calls / global context. Anything that would need a
live cluster fails with an error saying so when the policy uses it."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from . import fake_cluster, jmes
from .context import Context, ContextError
from .variables import SubstitutionError, substitute_all


@dataclass
class OfflineData:
    documents: list = field(default_factory=list)
    rule_values: dict = field(default_factory=dict)  # rule name -> {dotted key: value}
    foreach_values: dict = field(default_factory=dict)  # rule name -> {key: [values per element]}
    global_context: dict = field(default_factory=dict)  # globalReference name -> data
    api_calls: list = field(default_factory=list)  # [{url|urlPath, method, response{statusCode, body}}]
    serve_api_calls: bool = False  # answer apiCall GETs from the documents (a fake cluster)
    policy_namespace: str = ""


class ContextLoader:
    def __init__(self, data: OfflineData, rule_name: str) -> None:
        self.data = data
        self.rule_name = rule_name

    def _for_rule(self, table: dict) -> dict:
        """Values given for a rule also apply to its autogen rules (`kyverno test`'s GetPolicyRule)."""
        if not table:
            return {}
        for prefix in ("", "autogen-", "autogen-cronjob-"):
            if self.rule_name.startswith(prefix) and self.rule_name[len(prefix) :] in table:
                return table[self.rule_name[len(prefix) :]] or {}
        return {}

    def _initialize(self, ctx: Context) -> None:
        for key, value in self._for_rule(self.data.rule_values).items():
            ctx.add_variable(key, value)

    def on_foreach_element(self, ctx: Context, rule: dict, index: int) -> None:
        for key, values in self._for_rule(self.data.foreach_values).items():
            if isinstance(values, list) and index < len(values):
                ctx.add_variable(key, values[index])

    def load(self, ctx: Context, entries: list) -> None:
        """Register the entries. Like `kyverno test`, an entry that needs a live cluster is not loaded at all
        (values may supply it); a query that then misses it says why."""
        if not entries and not self.data.rule_values:
            return  # most rules: nothing to load (asked for every rule of every object)
        self._initialize(ctx)
        for entry in entries or []:
            name = entry.get("name", "")
            if entry.get("variable") is not None:
                ctx.add_deferred(name, _bind(_load_variable, ctx, entry))
            elif entry.get("configMap") is not None:
                ctx.add_deferred(name, _bind(self._load_configmap, ctx, entry))
            elif entry.get("globalReference") is not None and (
                entry["globalReference"].get("name") in self.data.global_context
            ):
                ctx.add_deferred(name, _bind(self._load_global, ctx, entry))
            elif entry.get("apiCall") is not None and (self.data.api_calls or self.data.serve_api_calls):
                ctx.add_deferred(name, _bind(self._load_api_call, ctx, entry))
            else:
                kind = next(
                    (k for k in ("apiCall", "globalReference", "imageRegistry") if entry.get(k) is not None), "context"
                )
                ctx.unavailable[name] = kind

    def _load_api_call(self, ctx: Context, entry: dict) -> None:
        name = entry.get("name", "")
        try:
            call: Any = substitute_all(ctx, entry["apiCall"])
        except SubstitutionError as err:
            raise ContextError(f"failed to substitute variables in apiCall context entry {name!r}: {err}") from None
        found, body = self._api_call_response(call, name)
        if not found:
            ctx.unavailable[name] = "apiCall"
            return
        if call.get("jmesPath"):
            try:
                body = jmes.search(call["jmesPath"], body)
            except (jmes.NotFoundError, jmes.JMESPathError) as err:
                raise ContextError(
                    f"failed to apply JMESPath {call['jmesPath']!r} for context entry {name!r}: {err}"
                ) from None
        ctx.replace(name, body)

    def _api_call_response(self, call: dict, name: str) -> tuple[bool, object]:
        """The body of the first matching mock, else (when serving) a GET answered from the documents."""
        url = ((call.get("service") or {}).get("url")) or call.get("urlPath") or ""
        method = call.get("method") or "GET"
        for mock in self.data.api_calls:
            if (mock.get("url") or mock.get("urlPath")) == url and (mock.get("method") or "GET") == method:
                response = mock.get("response") or {}
                status = response.get("statusCode", 200)
                if not 200 <= int(status) < 300:
                    raise ContextError(f"HTTP {status} from apiCall mock for context entry {name!r}")
                return True, copy.deepcopy(response.get("body"))
        if self.data.serve_api_calls and method == "GET" and call.get("urlPath"):
            return fake_cluster.get(self.data.documents, call["urlPath"])
        return False, None

    def _load_configmap(self, ctx: Context, entry: dict) -> None:
        name = entry.get("name", "")
        cm = entry["configMap"]
        try:
            cm_name = substitute_all(ctx, cm.get("name", ""))
            cm_ns = substitute_all(ctx, cm.get("namespace", "") or "")
        except SubstitutionError as err:
            raise ContextError(f"failed to substitute variables in context {name} configMap: {err}") from None
        if not cm_ns:
            cm_ns = self.data.policy_namespace or "default"
        for doc in self.data.documents:
            meta = doc.get("metadata") or {}
            if (
                doc.get("kind") == "ConfigMap"
                and meta.get("name") == cm_name
                and (meta.get("namespace") or "default") == cm_ns
            ):
                ctx.replace(name, {"data": copy.deepcopy(doc.get("data") or {}), "metadata": copy.deepcopy(meta)})
                return
        ctx.unavailable[name] = f"configMap {cm_ns}/{cm_name}"

    def _load_global(self, ctx: Context, entry: dict) -> None:
        name = entry.get("name", "")
        ref = entry["globalReference"]
        key = ref.get("name", "")
        if key not in self.data.global_context:
            raise ContextError(
                f"failed to load global context entry {key} for context entry {name}: "
                f"global context entries cannot run offline unless supplied in values"
            )
        value = self.data.global_context[key]
        if ref.get("jmesPath"):
            try:
                value = jmes.search(ref["jmesPath"], value)
            except (jmes.NotFoundError, jmes.JMESPathError) as err:
                raise ContextError(f"failed to apply JMESPath for context entry {name}: {err}") from None
        ctx.replace(name, value)


def _bind(fn, *args):
    return lambda: fn(*args)


def _load_variable(ctx: Context, entry: dict) -> None:
    name = entry.get("name", "")
    var = entry["variable"]
    path = ""
    try:
        if var.get("jmesPath"):
            p = substitute_all(ctx, var["jmesPath"])
            if not isinstance(p, str):
                raise ContextError(f"jmespath value must be a string {name} {var['jmesPath']}: <nil>")
            path = p
        default = substitute_all(ctx, var.get("default")) if var.get("default") is not None else None
    except SubstitutionError as err:
        raise ContextError(
            f"failed to substitute variables in context entry {name} {var.get('jmesPath', '')}: {err}"
        ) from None
    output = default
    if var.get("value") is not None:
        try:
            value = substitute_all(ctx, var["value"])
        except SubstitutionError as err:
            raise ContextError(
                f"failed to substitute variables in context entry {name} {var['value']}: {err}"
            ) from None
        if path:
            try:
                output = jmes.search(path, value)
            except (jmes.NotFoundError, jmes.JMESPathError) as err:
                if default is None:
                    raise ContextError(f"failed to apply jmespath {path} to variable {value}: {err}") from None
        else:
            output = value
    elif path:
        try:
            result = ctx.query(path)
            if result is not None:
                output = result
        except ContextError as err:
            if default is None:
                raise ContextError(f"failed to apply jmespath {path} to variable <nil>: {err}") from None
    if output is None:
        raise ContextError(f"failed to add context entry for variable {name} since it evaluated to nil")
    ctx.replace(name, output)
