"""any/all condition blocks of preconditions and deny (variables.EvaluateConditions)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from evaluator.cel.memo import exact_key

from . import operators
from .context import Context
from .memos import Memo, remembered
from .variables import SubstitutionError, substitute_read


class ConditionError(Exception):
    pass


def _join(parts: list[str], sep: str) -> str:
    return sep.join(p for p in parts if p)


def evaluate_condition(ctx: Context, condition: dict) -> tuple[bool, str]:
    if not isinstance(condition, dict):
        raise ConditionError("invalid condition")
    try:
        key = substitute_read(ctx, condition.get("key"))
    except SubstitutionError as err:
        raise ConditionError(f"failed to substitute variables in condition key: {err}") from None
    try:
        value = substitute_read(ctx, condition.get("value"))
    except SubstitutionError as err:
        raise ConditionError(f"failed to substitute variables in condition value: {err}") from None
    try:
        result = operators.evaluate(condition.get("operator", ""), key, value)
    except KeyError:
        raise ConditionError("failed to create handler for condition operator: %!w(<nil>)") from None
    return result, condition.get("message", "") or ""


def evaluate_conditions(ctx: Context, conditions: object) -> tuple[bool, str]:
    """Returns (passed, message). Raises ConditionError."""
    if conditions is None:
        return True, ""
    true_msgs: list[str] = []
    if isinstance(conditions, list):
        for c in conditions:
            ok, msg = evaluate_condition(ctx, c)
            if not ok:
                return False, msg
            true_msgs.append(msg)
        return True, _join(true_msgs, ";")
    if not isinstance(conditions, dict):
        raise ConditionError("invalid condition")
    any_conditions = conditions.get("any")
    all_conditions = conditions.get("all") or []
    any_result, all_result = True, True
    false_msgs: list[str] = []
    if any_conditions is not None:
        any_result = False
        for c in any_conditions:
            ok, msg = evaluate_condition(ctx, c)
            if ok:
                any_result = True
                true_msgs.append(msg)
                break
            false_msgs.append(msg)
    for c in all_conditions:
        ok, msg = evaluate_condition(ctx, c)
        if not ok:
            all_result = False
            false_msgs.append(msg)
            break
        true_msgs.append(msg)
    if any_result and all_result:
        return True, _join(true_msgs, "; ")
    return False, _join(false_msgs, "; ")


def remembered_outcome(ctx: Context, conditions: object) -> tuple[bool, str]:
    """`evaluate_conditions`, kept for the context's data when its answer depends on that data alone: every
    Pod Security rule has the same precondition (`{{ request.operation || 'BACKGROUND' }}` is not DELETE),
    asked of the one context data a request's policies share. Conditions that call a function (which may
    read the clock) or a context entry still to load are evaluated each time."""
    if conditions is None:
        return True, ""  # no conditions (most rules): nothing to evaluate or keep
    if not ctx.reads_data_alone():
        return evaluate_conditions(ctx, conditions)
    key = _key(conditions)
    if key is None:
        return evaluate_conditions(ctx, conditions)
    outcomes = held_for(ctx.data, _outcomes)
    found = outcomes.get((key, ctx.operation))
    if found is None:
        try:
            found = (evaluate_conditions(ctx, conditions), None)
        except ConditionError as err:
            found = (None, str(err))
        outcomes[(key, ctx.operation)] = found
    if found[1] is not None:
        raise ConditionError(found[1])
    return found[0]


def _key(conditions: object) -> bytes | None:
    """The conditions' exact form (their pickle), or None when they call a function or reference a
    pattern; worked out once per conditions object of a policy."""
    return remembered(conditions, _exact_form, _keys)


def _exact_form(conditions: object) -> bytes | None:
    return None if _calls(conditions) else exact_key(conditions)


def _calls(document: object) -> bool:
    if isinstance(document, str):
        return "(" in document or "&" in document
    if isinstance(document, dict):
        return any(_calls(k) or _calls(v) for k, v in document.items())
    if isinstance(document, list):
        return any(_calls(item) for item in document)
    return False


DATA_HELD = 8


def held_for(data: dict, store: OrderedDict[int, tuple[dict, dict]]) -> dict:
    """What `store` keeps for `data`, by identity (data is never changed in place), for the few data most
    recently asked about: a request's context data holds its object, and a foreach's elements each make data
    of their own, which must not push out the data the request's other policies share."""
    with _held_lock:  # the engine may run in several threads (a server without worker processes)
        found = store.get(id(data))
        if found is not None and found[0] is data:
            store.move_to_end(id(data))
            return found[1]
        kept: dict = {}
        store[id(data)] = (data, kept)
        store.move_to_end(id(data))
        while len(store) > DATA_HELD:
            store.popitem(last=False)
        return kept


_held_lock = threading.Lock()


# id(data) -> (data, {(conditions' key, operation): ((passed, message), None) or (None, error)})
_outcomes: OrderedDict[int, tuple[dict, dict]] = OrderedDict()
_keys: Memo = {}
