"""One Kyverno validate rule (pattern / anyPattern / deny / foreach) against the context
(pkg/engine/handlers/validation/validate_resource.go)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import conditions, validate_pattern
from .context import Context, ContextError
from .context_entries import ContextLoader
from .kept_errors import kept
from .memos import Memo, remembered, remembered_under
from .variables import SubstitutionError, substitute_all, substitute_read

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"


@dataclass
class RuleResponse:
    rule: str
    status: str
    message: str


@dataclass
class RuleInput:
    """What a rule is evaluated against."""

    ctx: Context
    resource: dict
    operation: str
    loader: ContextLoader
    element: dict | None = None
    extra: dict = field(default_factory=dict)


def _join(parts: list[str], sep: str) -> str:
    return sep.join(p for p in parts if p)


def load_and_check_preconditions(
    name: str, ctx: Context, loader: ContextLoader, entries: list, preconditions: object
) -> RuleResponse | None:
    """The first steps of every rule (and foreach entry): load its context entries, then check its
    preconditions; the response that stops the rule there, or None to go on."""
    try:
        loader.load(ctx, entries)
    except ContextError as err:
        return RuleResponse(name, ERROR, f"failed to load context: {err}")
    try:
        passed, msg = conditions.remembered_outcome(ctx, preconditions)
    except conditions.ConditionError as err:
        return RuleResponse(name, ERROR, f"failed to evaluate preconditions: {err}")
    if not passed:
        return RuleResponse(name, SKIP, _join(["preconditions not met", msg], "; "))
    return None


def rule_validator(rule: dict) -> Validator:
    """The validator of a rule's validate block (it keeps nothing of a run, so one serves every request)."""
    return remembered(rule, _rule_validator, _validators)


def _rule_validator(rule: dict) -> Validator:
    return Validator(rule, rule.get("validate") or {}, 0, None)


def _foreach_validator(foreach: dict, rule: dict, nesting: int) -> Validator:
    return Validator(rule, foreach, nesting, foreach.get("context"))


_validators: Memo = {}


class Validator:
    def __init__(self, rule: dict, part: dict, nesting: int, entries: list | None) -> None:
        self.rule = rule
        self.name = rule.get("name", "")
        self.validation = rule.get("validate") or {}
        self.part = part  # the validate block, or a foreach entry
        self.nesting = nesting
        self.entries = entries or []
        self.conditions = rule.get("preconditions") if nesting == 0 else part.get("preconditions")

    def _message_template(self) -> str:
        return self.validation.get("message", "") or ""

    def validate(self, inp: RuleInput) -> RuleResponse | None:
        stopped = load_and_check_preconditions(self.name, inp.ctx, inp.loader, self.entries, self.conditions)
        if stopped is not None:
            return stopped
        part = self.part
        if part.get("deny") is not None:
            return self._deny(inp)
        if part.get("pattern") is not None or part.get("anyPattern") is not None:
            try:
                key = "pattern" if part.get("pattern") is not None else "anyPattern"
                substituted = substitute_read(inp.ctx, part[key])
            except SubstitutionError as err:
                return RuleResponse(self.name, ERROR, f"variable substitution failed: {err}")
            return self._patterns(inp, key, substituted)
        if part.get("foreach") is not None:
            return self._foreach(inp)
        return None

    # --- deny ---
    def _deny(self, inp: RuleInput) -> RuleResponse:
        deny = self.part.get("deny") or {}
        try:
            denied, msg = conditions.evaluate_conditions(inp.ctx, deny.get("conditions"))
        except conditions.ConditionError as err:
            return RuleResponse(self.name, ERROR, f"failed to check deny conditions: {err}")
        if deny.get("conditions") is None:
            denied = True
        if not denied:
            return RuleResponse(self.name, PASS, f"validation rule '{self.name}' passed.")
        return RuleResponse(self.name, FAIL, self._deny_message(inp.ctx, msg))

    def _deny_message(self, ctx: Context, msg: str) -> str:
        template = self._message_template()
        if template == "" and msg == "":
            return f"validation error: rule {self.name} failed"
        text = _join([template, msg], "; ")
        try:
            raw = substitute_all(ctx, text)
        except SubstitutionError:
            return msg
        if isinstance(raw, str):
            return raw
        return "the produced message didn't resolve to a string, check your policy definition."

    # --- patterns ---
    def _patterns(self, inp: RuleInput, key: str, pattern: object) -> RuleResponse | None:
        target = inp.element if inp.element else None
        if target is None:
            if inp.operation == "DELETE":
                return None
            target = inp.resource
        if key == "pattern":
            err = validate_pattern.match_pattern(target, pattern)
            if err is None:
                return RuleResponse(self.name, PASS, f"validation rule '{self.name}' passed.")
            if err.skip:
                return RuleResponse(self.name, SKIP, str(err))
            if err.path == "":
                return RuleResponse(self.name, ERROR, self._error_message(inp.ctx, str(err), ""))
            return RuleResponse(self.name, FAIL, self._error_message(inp.ctx, str(err), err.path))
        if not isinstance(pattern, list):
            return RuleResponse(
                self.name,
                ERROR,
                "failed to deserialize anyPattern, expected type array: "
                "json: cannot unmarshal object into Go value of type []interface {}",
            )
        failed, skipped = [], []
        for idx, p in enumerate(pattern):
            err = validate_pattern.match_pattern(target, p)
            if err is None:
                return RuleResponse(self.name, PASS, f"validation rule '{self.name}' anyPattern[{idx}] passed.")
            if err.skip:
                skipped.append(f"rule {self.name}[{idx}] skipped: {err}")
            elif err.path == "":
                failed.append(f"rule {self.name}[{idx}] failed: {err}")
            else:
                failed.append(f"rule {self.name}[{idx}] failed at path {err.path}")
        if skipped and not failed:
            return RuleResponse(self.name, SKIP, " ".join(skipped))
        if failed:
            return RuleResponse(self.name, FAIL, self._any_pattern_message(inp.ctx, failed))
        return RuleResponse(self.name, PASS, self._message_template())

    def _substituted_message(self, ctx: Context) -> str | None:
        try:
            raw = substitute_all(ctx, self._message_template())
        except SubstitutionError:
            return None
        return raw if isinstance(raw, str) else str(raw)

    def _error_message(self, ctx: Context, err: str, path: str) -> str:
        if self._message_template() == "":
            if path:
                return f"validation error: rule {self.name} failed at path {path}"
            return f"validation error: rule {self.name} execution error: {err}"
        msg = self._substituted_message(ctx)
        if msg is None:
            return f"validation error: variables substitution error in rule {self.name} execution error: {err}"
        if not msg.endswith("."):
            msg += "."
        if path:
            return f"validation error: {msg} rule {self.name} failed at path {path}"
        return f"validation error: {msg} rule {self.name} execution error: {err}"

    def _any_pattern_message(self, ctx: Context, errors: list[str]) -> str:
        text = " ".join(errors)
        if self._message_template() == "":
            return f"validation error: {text}"
        msg = self._substituted_message(ctx)
        if msg is None:
            return f"validation error: variables substitution error in rule {self.name} execution error: {text}"
        if msg.endswith("."):
            return f"validation error: {msg} {text}"
        return f"validation error: {msg}. {text}"

    # --- foreach ---
    def _foreach(self, inp: RuleInput) -> RuleResponse | None:
        apply_count = 0
        list_error = None
        for foreach in self.part.get("foreach") or []:
            try:
                result = inp.ctx.query(foreach.get("list", ""))
            except ContextError as err:
                if "Unknown key" in str(err):
                    continue
                list_error = kept(err)
                continue
            elements = result if isinstance(result, list) else [result]
            resp, count = self._elements(inp, foreach, elements)
            if resp.status != PASS:
                return resp
            apply_count += count
        if apply_count == 0:
            if list_error is not None:
                return RuleResponse(self.name, ERROR, f"failed to evaluate list: {list_error}")
            return None
        return RuleResponse(self.name, PASS, "rule passed")

    def _elements(self, inp: RuleInput, foreach: dict, elements: list) -> tuple[RuleResponse, int]:
        ctx = inp.ctx
        # keyed by the rule too: a YAML alias may share one foreach between rules (the child holds its rule)
        key = (id(foreach), id(self.rule), self.nesting + 1)
        child = remembered_under(key, foreach, _foreach_validator, _validators, self.rule, self.nesting + 1)
        ctx.checkpoint()
        try:
            apply_count = 0
            for index, element in enumerate(elements):
                if element is None:
                    continue
                ctx.reset()
                ctx.add_element(element, index, self.nesting)
                scope = foreach.get("elementScope")
                scoped = isinstance(element, dict)
                if scope is not None:
                    if scope and not isinstance(element, dict):
                        return RuleResponse(
                            self.name,
                            ERROR,
                            "failed to process foreach: cannot use elementScope=true "
                            "foreach rules for elements that are not maps, expected type=map got "
                            f"type={validate_pattern.go_type(element)}",
                        ), apply_count
                    scoped = bool(scope)
                child_input = RuleInput(
                    ctx, inp.resource, inp.operation, inp.loader, element if scoped else inp.element, inp.extra
                )
                inp.loader.on_foreach_element(ctx, self.rule, index)
                r = child.validate(child_input)
                if r is None or r.status == SKIP:
                    continue
                if r.status != PASS:
                    if r.status == ERROR and "failed to evaluate preconditions" in r.message:
                        continue
                    return RuleResponse(self.name, r.status, f"validation failure: {r.message}"), apply_count
                apply_count += 1
            return RuleResponse(self.name, PASS, ""), apply_count
        finally:
            ctx.restore()
