"""Runtime cost in cel-go's units, as the Kubernetes API server counts it.

The API server builds programs with `cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost)`,
`interpreter.PresenceTestHasCost(false)` and Kubernetes' `library.CostEstimator`
(apiserver pkg/cel/environment/base.go). The expected figures below come from cel-go's
interpreter/runtimecost_test.go and Kubernetes' pkg/cel/library/cost_test.go, adjusted where those
tests run without OptOptimize. OptOptimize only folds (at zero cost) list and map literals whose
elements are all constants — including the empty `[]` / `{}` accumulators the macros expand to —,
type conversions of a constant (`string(1)`), and `x in <constant list>` (a set-membership test with
no call cost). Every other call on constants (`1 < 2`, `size("123")`, `ip('1.2.3.4')`) is evaluated
and charged at run time.

The rules used to derive the figures (interpreter/runtimecost.go):
* identifier or attribute: 1; each select/index qualifier: 1; an index by a plain variable `m[k]`
  costs 1 for the qualifier (the variable is not charged again); constants: 0;
* calls: 1, or the overload's cost (strings: ceil(size * 0.1) of the receiver; `contains`:
  product of both; `matches`: ceil((1+len)*0.1) * ceil(len(re)*0.25); `==`/`<` on strings:
  ceil(min size * 0.1); `in` list: size of the list; Kubernetes' CostEstimator for its libraries);
* list literal 10, map literal 30; `&&`, `||` and `?:` cost nothing themselves; the branch of `?:`
  that is a plain attribute is resolved without an observation (cost 0);
* comprehensions per cel-go's macro expansion: all = condition 2 (`@not_strictly_false(accu)`) +
  step 1 + predicate; exists = condition 3 (`@not_strictly_false(!accu)`) + step 1 + predicate; the
  condition is evaluated once more when the loop stops early with elements left; result: accu 1;
  exists_one: predicate + 2 when true; map: 12 + transform; filter: predicate + 13 when kept, 0 when
  not; transformList 14 + body; transformMap 5 + body (mapInsert); result 1.
"""

from __future__ import annotations

import pytest

from evaluator.cel import CostBudget, CostLimitError, EvaluationError, compile_program
from evaluator.cel.library.authz import AuthzDecision, Authorizer

LONG = "x" * 500
S50 = "0123456789" * 5


def _cost(expression: str, activation: dict) -> int:
    return compile_program(expression, declared=tuple(activation)).evaluate(activation).cost


_OPT_SELF = {"self": {"obj": {"field": "a"}, "m": {"k": "v"}, "l": ["a"]}}

CASES = [
    # --- identifiers, selection, index (cel-go runtimecost_test.go) ---
    ("input", {"input": [1, 2]}, 1, ()),
    ("input['key']", {"input": {"key": "v"}}, 2, ()),
    ("input[0]", {"input": ["v"]}, 2, ()),
    ("a.b.c", {"a": {"b": {"c": 1}}}, 3, ()),
    ("has(input.testAttr.nestedAttr)", {"input": {"testAttr": {"nestedAttr": "0"}}}, 2, ()),  # presence free
    ("input[k]", {"input": {"a": 1}, "k": "a"}, 2, ()),
    ("input.all(k, input[k].single_int32 > 3)", {"input": {"val": {"single_int32": 0}}}, 9, ()),
    # --- operators on variables ---
    ("x < y", {"x": 1, "y": 2}, 3, ()),
    ("s == t", {"s": "1" * 20, "t": "1" * 30}, 4, ()),
    ("x in l", {"x": 1, "l": [1, 2, 3]}, 5, ()),
    ("a || b || c || d", dict(a=False, b=False, c=False, d=False), 4, ()),
    ("a && b && c && d", dict(a=True, b=True, c=True, d=True), 4, ()),
    ("(list1 + list2).all(x, true)", {"list1": [], "list2": []}, 4, ()),
    ('"abcdefg".contains(str1 + str2)', {"str1": "val1", "str2": "val2222222"}, 6, ()),
    ("(x > 2 ? input1 : input2).all(y, true)", {"x": 1, "input1": [{}], "input2": [{}]}, 6, ()),
    # --- string functions ---
    ("input.contains(arg1)", {"input": LONG, "arg1": LONG}, 2502, ()),
    ("input.matches('[0-9]')", {"input": LONG}, 103, ()),
    ("input.startsWith(arg1)", {"input": "idc", "arg1": LONG}, 3, ()),
    ("input.endsWith(arg1)", {"input": "idc", "arg1": LONG}, 3, ()),
    ("input.size()", {"input": "500"}, 2, ()),
    ("size(input)", {"input": "500"}, 2, ()),
    ("string(input)", {"input": LONG.encode()}, 51, ()),
    ("bytes(input)", {"input": LONG}, 51, ()),
    # --- comprehensions over variables ---
    ("input.all(x, true)", {"input": []}, 2, ()),
    ("l.all(x, x < 5)", {"l": [1, 2, 3]}, 17, ()),
    ("l.all(x, x < 2)", {"l": [1, 2, 3]}, 14, ()),
    ("l.exists(x, x == 5)", {"l": [1, 2, 3, 4, 5]}, 32, ()),
    ("m.exists(k, v, v > 0)", {"m": {"a": 1, "b": 2}}, 11, ()),
    ("m.all(k, v, v > 0)", {"m": {"a": 1, "b": 2}}, 12, ()),
    ("m.existsOne(k, v, v > 0)", {"m": {"a": 1, "b": 2}}, 11, ()),
    ("l.exists_one(x, x > 1)", {"l": [1, 2, 3]}, 13, ()),
    ("l.map(x, x)", {"l": [1, 2, 3, 4, 5]}, 67, ()),
    ("l.filter(x, x % 2 == 0)", {"l": [1, 2, 3, 4, 5]}, 43, ()),
    ("l.transformList(i, v, v + 1)", {"l": [1, 2]}, 30, ()),
    ("l.transformList(i, v, v < 5, v + 1)", {"l": [1, 2]}, 34, ()),
    ("m.transformMap(k, v, v + 1)", {"m": {"a": 1, "b": 2}}, 12, ()),
    ("m.transformMap(k, v, v < 5, v + 1)", {"m": {"a": 1, "b": 2}}, 16, ()),
    ("m.transformMapEntry(k, v, {k: v + 1})", {"m": {"a": 1, "b": 2}}, 72, ()),
    # --- Kubernetes libraries (library.CostEstimator) on variables ---
    ("l.sum()", {"l": [1, 2, 3, 4, 5]}, 6, ()),
    ("l.max()", {"l": ["012345678901"] * 5}, 6, ()),
    ("s.indexOf('123')", {"s": S50}, 6, ()),
    ("url(u).getScheme()", {"u": "https:://kubernetes.io/"}, 5, ()),
    ("ip(s)", {"s": "192.168.0.1"}, 3, ()),
    ("ip(s).family()", {"s": "192.168.0.1"}, 4, ()),
    ("cidr(c).containsIP(i)", {"c": "192.168.0.0/16", "i": "192.0.0.1"}, 6, ()),
    ("semver(s)", {"s": "1234.56789012345.67890123456789"}, 5, ()),
    ("quantity(s)", {"s": "1Gi"}, 2, ()),
    ("s.lowerAscii()", {"s": S50}, 6, ()),
    ("s.split(',')", {"s": S50}, 11, ()),
    ("s.replace('a', 'b')", {"s": S50}, 11, ()),
    ("l.join(',')", {"l": ["ab", "cd"]}, 2, ()),
    ("s.find('[0-9]+')", {"s": S50}, 13, ()),
    # --- constants under OptOptimize ---
    ('"Hello World!"', {}, 0, ()),
    ("[1, 2, 3]", {}, 0, ()),
    ('{"a": 1, "b": 2, "c": 3}', {}, 0, ()),
    ("[1, 2, 3].all(x, true)", {}, 10, ()),
    ("[{'k1': 1}, {'k2': 2}].all(x, true)", {}, 7, ()),
    ("2 in [1, 2, 3]", {}, 0, ()),
    ("x in [1, 2, 3]", {"x": 1}, 1, ()),
    ("string(1)", {}, 0, ()),
    ("true ? 1 : 2", {}, 0, ()),
    ("true || false", {}, 0, ()),
    ("1 < 2", {}, 1, ()),
    ("1 + 1", {}, 1, ()),
    ('size("123")', {}, 1, ()),
    ("'abc'.startsWith('a')", {}, 1, ()),
    ("'12345678901234567890' == '123456789012345678901234567890'", {}, 2, ()),
    ("'123'.matches('[0-9]')", {}, 2, ()),
    ("false ? false : 1 > 3", {}, 1, ()),
    ("(1 > 2 ? 5 : 3) > 1", {}, 2, ()),
    ("(1 > 2 || 2 > 1) == true", {}, 3, ()),
    ("input['ke' + 'y']", {"input": {"key": "v"}}, 3, ()),
    ("ip('192.168.0.1')", {}, 2, ()),
    ("[1, 2, 3, 4, 5].sum()", {}, 5, ()),
    ("semver('1.0.0').isLessThan(semver('1.1.0'))", {}, 3, ()),
    # --- macros over literals (cel-go figures minus the folded literals and accumulators) ---
    ("[1,2,3,4,5].map(x, x)", {}, 66, ()),
    ("[1,2,3,4,5].map(x, x).map(x, x)", {}, 132, ()),
    ("[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)", {}, 202, ()),
    ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", {}, 133, ()),
    ("[1,2,3,4,5].filter(x, x % 2 == 0)", {}, 42, ()),
    ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", {}, 108, ()),
    ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", {}, 98, ()),
    ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", {}, 151, ()),
    ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", {}, 56, ()),
    # --- selecting from what is not an attribute: cel-go wraps it in a relative attribute (1) ---
    ("[1, 2][0]", {}, 2, ()),
    ("{'a': 1}.a", {}, 2, ()),
    ("l.map(x, x)[0]", {"l": [1]}, 17, ()),  # l 1, map 13 per element, result 1, then 1 + index 1
    ("(true ? l : l)[0]", {"l": [1]}, 1, ()),  # a ternary is an attribute already (and costs nothing)
    # --- a failing operand: cel-go still evaluates the other one and charges the call ---
    # m 1; per element: condition 3, step 1, x 1, .v 1 (fails on the first), == 1; result 1
    ("m.exists(x, x.v == 'z')", {"m": [{}, {"v": "z"}]}, 16, ()),
    # l 1; keys 13 per element; the two reads of the bound input and the map's result 3; the sort 19
    ("l.sortBy(e, e)", {"l": [3, 1]}, 49, ()),
    # --- optionals: apiextensions-apiserver celcoststability_test.go TestCelCostStability "optionals" ---
    # or/orValue are planned as evalOptionalOr/OrValue: no call cost, the argument only when needed
    ("optional.of('a').or(optional.of('a')).hasValue()", {}, 2, ()),
    ("optional.none().or(optional.of('a')).hasValue()", {}, 3, ()),
    ("self.obj.?field.orValue('v') == 'a'", _OPT_SELF, 4, ()),
    # optMap's expansion: target, hasValue, the target's copy, value, body (v 1, == 1), optional.of
    ("optional.of('a').optMap(v, v == 'value').hasValue()", {}, 8, ()),
    ("optional.none().optMap(v, v == 'value').hasValue()", {}, 4, ()),  # none, hasValue, none(), hasValue
    ("self.l[?0].optMap(v, v == 'a').hasValue()", _OPT_SELF, 12, ()),
    # a step that can miss costs 1 only when it finds something
    ("self.obj.?field == optional.of('a')", _OPT_SELF, 5, ()),
    ("self.obj.?absentField == optional.none()", _OPT_SELF, 4, ()),
    ("self.obj.?absentField.?x == optional.none()", _OPT_SELF, 4, ()),
    ("self.m[?'k'] == optional.of('v')", _OPT_SELF, 5, ()),
    ("self.m[?'absent'] == optional.none()", _OPT_SELF, 4, ()),
    ("self.l[?0] == optional.of('a')", _OPT_SELF, 5, ()),
]


@pytest.mark.parametrize(
    "expression, activation, expected",
    [pytest.param(e, a, c, id=e, marks=list(m)) for e, a, c, m in CASES],
)
def test_cost_matches_api_server(expression, activation, expected):
    assert _cost(expression, activation) == expected


def test_authorizer_check_costs_350000():
    authorizer = Authorizer(lambda request: AuthzDecision("allow", ""))
    cost = _cost("authorizer.group('').resource('pods').check('get').allowed()", {"authorizer": authorizer})
    # authorizer 1, group 1, resource 1, check 350000, allowed 1
    assert cost == 350_004


# --- limits and budgets --------------------------------------------------------------------------------
BOMB = "l.map(x, l.map(y, x + y))"


def test_per_call_limit_is_one_million():
    l300 = list(range(300))  # ~15 units per inner element: 300 * 300 * 15 > 1,000,000
    program = compile_program(BOMB, declared=("l",))
    with pytest.raises(CostLimitError) as info:
        program.evaluate({"l": l300})
    assert info.value.message == "operation cancelled: actual cost limit exceeded"
    assert isinstance(info.value, EvaluationError)
    small = program.evaluate({"l": list(range(100))})  # ~150,000: under the limit
    assert 100_000 < small.cost < 1_000_000


def test_cost_is_the_same_on_every_evaluation():
    program = compile_program("l.filter(x, x > 2).map(x, x * 2)", declared=("l",))
    costs = {program.evaluate({"l": [1, 2, 3, 4]}).cost for _ in range(5)}
    assert len(costs) == 1


def test_budget_is_shared_across_evaluations():
    program = compile_program("l.all(x, x >= 0)", declared=("l",))
    act = {"l": list(range(10))}
    one = program.evaluate(act).cost
    budget = CostBudget(one * 2 + one // 2)
    assert program.evaluate(act, budget).cost == one
    assert budget.remaining == one + one // 2
    program.evaluate(act, budget)
    assert budget.remaining == one // 2
    with pytest.raises(CostLimitError):
        program.evaluate(act, budget)
    assert budget.remaining < 0


def test_budget_is_shared_across_programs():
    first = compile_program("l.all(x, x >= 0)", declared=("l",))
    second = compile_program("l.exists(x, x > 100)", declared=("l",))
    act = {"l": list(range(50))}
    c1, c2 = first.evaluate(act).cost, second.evaluate(act).cost
    budget = CostBudget(c1 + c2)
    first.evaluate(act, budget)
    second.evaluate(act, budget)
    assert budget.remaining == 0
    with pytest.raises(CostLimitError):
        first.evaluate(act, budget)


def test_budget_smaller_than_per_call_limit_stops_the_evaluation_early():
    program = compile_program(BOMB, declared=("l",))
    budget = CostBudget(1000)
    with pytest.raises(CostLimitError) as info:
        program.evaluate({"l": list(range(300))}, budget)
    # stopped near the budget, not after the whole 1,350,000-unit evaluation
    assert info.value.cost < 10_000
    assert budget.remaining < 0


def test_evaluation_error_reports_cost_spent():
    program = compile_program("l.all(x, x.missing == 1)", declared=("l",))
    with pytest.raises(EvaluationError) as info:
        program.evaluate({"l": [{}, {}]})
    assert info.value.cost > 0


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('"str1 " + ["a", "b", "c", "d"][4]', 3),  # index 2, then the `+` on the error 1
        ("l[5] == 1 + y", 5),  # l 1, index 1, then the right side (y 1, `+` 1), then `==` 1 on the error
        ("size(l[5])", 3),  # l 1, index 1, size 1
        ("int(l[5]) + int(y)", 6),  # l 1, index 1, int 1; y 1, int 1; `+` 1
    ],
)
def test_a_failing_argument_still_costs_the_call_and_the_other_arguments(expression, expected):
    program = compile_program(expression, declared=("l", "y"))
    with pytest.raises(EvaluationError) as info:
        program.evaluate({"l": [1], "y": 2})
    assert info.value.cost == expected
