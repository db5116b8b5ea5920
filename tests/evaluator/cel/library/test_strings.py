"""cel-go's strings extension at Kubernetes' version 2: functions, exact errors, `format`, costs.

Expected `format` outputs for `%f`/`%e` were produced by golang.org/x/text v0.40.0's en-US printer (the
one cel-go's version-2 formatter calls) and `%q` ones by Go's strconv.Quote.
"""

from __future__ import annotations

import json

import pytest

from evaluator.cel import CELError, CompileError, EvaluationError, compile_program
from evaluator.cel.env import Env, admission_env
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library import strings as S
from evaluator.cel.library.strings_format import check_format_call, format_string, go_quote
from evaluator.cel.operators import equals
from evaluator.cel.registry import REGISTRY
from evaluator.cel.types import DYN
from evaluator.cel.values import CelType, Duration, Timestamp, UInt
from tests.evaluator.cel.library.helpers import error_of, k8s_library_cases, run
from tests.shared_data import conformance_file


# --- plain functions -------------------------------------------------------------------------------
@pytest.mark.parametrize("s, i, want", [("tacocat", 3, "o"), ("tacocat", 7, ""), ("©αT", 1, "α")])
def test_char_at(s, i, want):
    assert S.char_at(s, i) == want


@pytest.mark.parametrize("i", [-1, 8])
def test_char_at_out_of_range(i):
    with pytest.raises(CELEvalError, match=f"^index out of range: {i}$"):
        S.char_at("tacocat", i)


@pytest.mark.parametrize(
    "args, want",
    [
        (("tacocat", ""), 0),
        (("tacocat", "ac"), 1),
        (("tacocat", "none"), -1),
        (("tacocat", "", 3), 3),
        (("tacocat", "a", 3), 5),
        (("ta©o©αT", "©", 3), 4),
        (("ta©o©αT", "©α", 5), -1),
        (("hello mellow", "ello", 20), -1),  # cel-go since 2024: an offset past the end finds nothing
        (("abc", "", 10), 3),  # the empty string matches at the offset, clamped to the end
    ],
)
def test_index_of(args, want):
    assert S.index_of(*args) == want


@pytest.mark.parametrize(
    "args, want",
    [
        (("tacocat", ""), 7),
        (("tacocat", "at"), 5),
        (("", "@@"), -1),
        (("tacocat", "", 3), 3),
        (("tacocat", "a", 3), 1),
        (("ta©o©αT", "©α", 4), 4),
        (("bananananana", "nana", 7), 6),
        (("hello mellow", "ello", 20), -1),
        (("ab", "abc"), -1),
    ],
)
def test_last_index_of(args, want):
    assert S.last_index_of(*args) == want


def test_negative_offsets_are_errors():
    with pytest.raises(CELEvalError, match="^index out of range: -1$"):
        S.index_of("abc", "a", -1)
    with pytest.raises(CELEvalError, match="^index out of range: -1$"):
        S.last_index_of("abc", "", -1)


def test_ascii_casing_leaves_other_letters():
    assert S.lower_ascii("TacoCÆt Xii") == "tacocÆt xii"
    assert S.upper_ascii("tacoCαt ÿ") == "TACOCαT ÿ"


@pytest.mark.parametrize(
    "args, want",
    [
        (("hello hello", "he", "we"), "wello wello"),
        (("hello hello", "he", "we", 1), "wello hello"),
        (("hello hello", "he", "we", 0), "hello hello"),
        (("hello hello", "he", "we", -7), "wello wello"),
        (("hello", "", "_"), "_h_e_l_l_o_"),
        (("hello", "", "_", 2), "_h_ello"),
        (("1 ©αT", "αT", "o©α"), "1 ©o©α"),
    ],
)
def test_replace_is_go_strings_replace(args, want):
    assert S.replace(*args) == want


@pytest.mark.parametrize(
    "args, want",
    [
        (("hello world", " "), ["hello", "world"]),
        (("a b c", " ", 0), []),
        (("a b c", " ", 1), ["a b c"]),
        (("a b c", " ", 2), ["a", "b c"]),
        (("o©o©o", "©", -1), ["o", "o", "o"]),
        (("", ","), [""]),
        (("", ""), []),
        (("a©c", ""), ["a", "©", "c"]),
        (("abcd", "", 2), ["a", "bcd"]),
    ],
)
def test_split_is_go_strings_split_n(args, want):
    assert S.split(*args) == want


def test_substring_errors_in_cel_go_order():
    assert S.substring("ta©o©αT", 2, 6) == "©o©α"
    assert S.substring("tacocat", 7) == ""
    for args, message in [
        ((40,), "index out of range: 40"),
        ((-1,), "index out of range: -1"),
        ((1, 50), "index out of range: 50"),
        ((49, 50), "index out of range: 49"),
        ((4, 3), "invalid substring range. start: 4, end: 3"),
        ((-2, -1), "index out of range: -2"),
    ]:
        with pytest.raises(CELEvalError) as info:
            S.substring("tacocat", *args)
        assert info.value.message == message


def test_trim_uses_go_unicode_space():
    assert S.trim(" \f\n\r\t\vtext  ") == "text"
    assert S.trim("\u0085\u00a0\u1680text\u2000\u200a\u2028\u2029\u202f\u205f\u3000") == "text"
    kept = "\u180etext\u200b\u200c\u200d\u2060\ufeff"
    assert S.trim(kept) == kept
    assert S.trim("\x1ctext\x1f") == "\x1ctext\x1f"  # Python's isspace() would strip these; Go's does not


def test_join():
    assert S.join(["a", "b"]) == "ab"
    assert S.join(["a", "b"], "-") == "a-b"
    assert S.join([], "-") == ""
    with pytest.raises(CELEvalError, match="^join: invalid input: 1$"):
        S.join(["a", 1])


@pytest.mark.parametrize(
    "s, want",
    [
        ("first\nsecond", '"first\\nsecond"'),
        ("bell\a", '"bell\\a"'),
        ('mid " quote', '"mid \\" quote"'),
        ("ends with \\", '"ends with \\\\"'),
        ("printable unicode😀", '"printable unicode😀"'),
        ("", '""'),
        ("\x00", '"\x00"'),  # only CEL's escape characters are escaped, as cel-go does
    ],
)
def test_quote(s, want):
    assert S.quote(s) == want


def test_go_quote_matches_strconv_quote():
    cases = {
        'a"b\\c': '"a\\"b\\\\c"',
        "tab\there": '"tab\\there"',
        "\x00\x1f\x7f": '"\\x00\\x1f\\x7f"',
        "é©😀": '"é©😀"',
        "\u00a0\u200b\u2028": '"\\u00a0\\u200b\\u2028"',
        "\ufeff": '"\\ufeff"',
        "\U000e0001": '"\\U000e0001"',
    }
    for text, want in cases.items():
        assert go_quote(text) == want


# --- format (version 2, Kubernetes) ---------------------------------------------------------------
TS = Timestamp(1675467080 * 10**9)


@pytest.mark.parametrize(
    "fmt, args, want",
    [
        ("%e", [3.14], "3.140000×10⁰⁰"),
        ("%e", [1052.032911275], "1.052033×10⁰³"),
        ("%.3e", [1.23456789], "1.234568×10⁰⁰"),  # the precision is read as a width: six digits stay
        ("%.20e", [1.5], "       1.500000×10⁰⁰"),
        ("%.0e", [1.5], "1.500000×10⁰⁰"),  # "%0e": a flag, no width
        ("%e", [1e-10], "1.000000×10⁻¹⁰"),
        ("%e", [1e100], "1.000000×10¹⁰⁰"),
        ("%e", [-0.0], "0.000000×10⁰⁰"),
        ("%e", [float("nan")], "   NaN"),
        ("%e", [float("inf")], "     ∞"),
        ("%e", [float("-inf")], "    -∞"),
        ("%e", ["Infinity"], "     ∞"),
        ("%f", [1234567.891], "1,234,567.891000"),
        ("%.3f", [1.2345], "1.234"),
        ("%.0f", [2.5], "2"),
        ("%.0f", [3.5], "4"),
        ("%.2f", [0.125], "0.12"),
        ("%.2f", [1.005], "1.00"),
        ("%.1f", [0.05], "0.1"),
        ("%f", [-0.0], "0.000000"),
        ("%.2f", [-0.0001], "-0.00"),
        ("%.3f", [-123.4999], "-123.500"),
        ("%f", [float("inf")], "∞"),
        ("%f", [float("-inf")], "-∞"),
        ("%f", [float("nan")], "NaN"),
        ("%f", ["NaN"], "NaN"),
        ("%.6f", [999999.9999999], "1,000,000.000000"),
        (
            "%d %s %f %s %s",
            [1, "abc", 1.0, Duration(60 * 10**9), Timestamp(946684800 * 10**9)],
            "1 abc 1.000000 60s 2000-01-01T00:00:00Z",
        ),
        ("%o %o %o", [7, 8, 9], "7 10 11"),
        ("%b %b %b", [7, 8, 9], "111 1000 1001"),
        ("%b", [True], "1"),
        ("%x %X %o %b", [-255, -255, -8, -5], "-ff -FF -10 -101"),
        ("%x", ["Hé"], "48c3a9"),
        ("%X", [b"byte string"], "6279746520737472696E67"),
        ("%d", [UInt(2**64 - 1)], "18446744073709551615"),
        ("%s", [1e21], "1e+21"),
        ("%s", [123456.0], "123456"),
        ("%s", [1234567.0], "1.234567e+06"),
        ("%s", [float("inf")], "+Inf"),
        ("%s", [None], "null"),
        ("%s", [b"xyz"], "xyz"),
        ("%s", [CelType("string")], "string"),
        ("%s", [TS], "2023-02-03T23:31:20Z"),
        ("%s", [Duration(6347 * 10**9)], "6347s"),
        ("%s", [Duration(1_500_000)], "0.0015s"),
        (
            "%s",
            [["abc", 3.14, None, [9, 8], TS, b"x", Duration(10**9), True, UInt(3), CelType("int")]],
            '["abc", 3.140000, null, [9, 8], timestamp("2023-02-03T23:31:20Z"), b"x", duration("1s"), true, 3, int]',
        ),
        ("%s", [[float("nan"), float("inf"), float("-inf"), -0.0]], '["NaN", "+Inf", "-Inf", -0.000000]'),
        (
            "%s",
            [{"key1": b"xyz", "key5": None, "key2": Duration(7200 * 10**9), "key4": True, "key3": 2.71828}],
            '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
        ),
        ("%s", [{2: "b", 10: "a"}], '{10:"a", 2:"b"}'),  # sorted as the printed keys
        ("%s", [{"q": 'say "hi"\n'}], '{"q":"say \\"hi\\"\\n"}'),
        ("%%%s%%", ["text"], "%text%"),
        ("no substitution", [], "no substitution"),
        ("héllo %s", ["wörld"], "héllo wörld"),
    ],
)
def test_format_v2_outputs(fmt, args, want):
    assert format_string(fmt, args) == want


@pytest.mark.parametrize(
    "fmt, args, message",
    [
        ("%a", [1], 'could not parse formatting clause: unrecognized formatting clause "a"'),
        ("%E", [0.5], 'could not parse formatting clause: unrecognized formatting clause "E"'),
        ("%é", [1], 'could not parse formatting clause: unrecognized formatting clause "Ã"'),  # Go reads a byte
        ("%d %d %d", [0, 1], "index 2 out of range"),
        ("%", [], "index 0 out of range"),  # the argument is fetched before the end check
        ("%", [1], "unexpected end of string"),
        (
            "%.3",
            [1.0],
            "could not parse formatting clause: error while parsing precision: could not find end of "
            "precision specifier",
        ),
        (
            "%.f",
            [1.0],
            "could not parse formatting clause: error while parsing precision: error while converting "
            'precision to integer: strconv.Atoi: parsing "": invalid syntax',
        ),
        (
            "string is %b",
            ["abc"],
            "error during formatting: only integers and bools can be formatted as binary, was given string",
        ),
        (
            "%d",
            [Duration(1)],
            "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration",
        ),
        ("%d", [1.5], "error during formatting: decimal clause can only be used on integers, was given double"),
        ("%f", [2], "error during formatting: fixed-point clause can only be used on doubles, was given int"),
        ("%e", [None], "error during formatting: scientific clause can only be used on doubles, was given null_type"),
        (
            "%x",
            [0.5],
            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, "
            "was given double",
        ),
        ("%o", ["a"], "error during formatting: octal clause can only be used on integers, was given string"),
        (
            "%s",
            [b"\xff"],
            'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot '
            'convert to string" to string',
        ),
        ("%s", [[object()]], "error during formatting: no formatting function for object"),
    ],
)
def test_format_v2_errors(fmt, args, message):
    with pytest.raises(CELEvalError) as info:
        format_string(fmt, args)
    assert info.value.message == message


def test_format_precision_is_bounded():
    with pytest.raises(CELEvalError, match="exceeds maximum allowed precision"):
        format_string("%.999999999f", [1.0])


@pytest.mark.parametrize(
    "fmt, args, want",
    [
        ("%e", [2.71828], "2.718280e+00"),
        ("%.6e", [1052.032911275], "1.052033e+03"),
        ("%e", [2], "2.000000e+00"),
        ("%f", [UInt(3)], "3.000000"),
        ("%d", [float("-inf")], "-Infinity"),
        ("%e", [float("nan")], "NaN"),
        ("%s", [["abc", 3.14, None, [9, 8, 7, 6], TS]], "[abc, 3.14, null, [9, 8, 7, 6], 2023-02-03T23:31:20Z]"),
        ("%s", [{"strKey": "x", 6: Duration(422 * 10**9), True: 42}], "{6: 422s, strKey: x, true: 42}"),
        ("%s", [[float("nan"), float("inf"), float("-inf")]], "[NaN, Infinity, -Infinity]"),
        ("%s", [1e21], "1000000000000000000000"),
    ],
)
def test_format_v4_for_cel_spec(fmt, args, want):
    assert format_string(fmt, args, 4) == want


def test_format_call_check():
    assert check_format_call("%d %s %f %s %s", ["int", "string", "double", "duration", "timestamp"]) is None
    assert check_format_call("%d", ["dyn"]) is None
    assert check_format_call("%d", ["string"]) == (
        "error during formatting: decimal clause can only be used on integers, was given string",
        0,
    )
    assert check_format_call("%s %x", ["int", "double"]) == (
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
        1,
    )
    assert check_format_call("%d", ["int", "int"]) == (
        "too many arguments supplied to string.format (expected 1, got 2)",
        None,
    )
    assert check_format_call("%d %d", ["int"]) == ("index 1 out of range", None)
    assert check_format_call("%q", ["int"])[0].startswith("could not parse formatting clause")


# --- declarations and costs -----------------------------------------------------------------------
def test_declared_overloads_follow_version_2():
    signatures = {
        o.signature()
        for name in (
            "charAt",
            "indexOf",
            "lastIndexOf",
            "join",
            "format",
            "reverse",
            "strings.quote",
            "split",
            "replace",
            "substring",
        )
        for o in REGISTRY.overloads(name)
    }
    assert "string.charAt(int) -> string" in signatures
    assert "string.indexOf(string, int) -> int" in signatures
    assert "list(string).join(string) -> string" in signatures
    assert "string.format(list(dyn)) -> string" in signatures
    assert "strings.quote(string) -> string" in signatures
    assert "string.replace(string, string, int) -> string" in signatures
    assert not any(o.signature().startswith("string.reverse") for o in REGISTRY.overloads("reverse"))


def _cost(name: str, args: tuple, result=None) -> int:
    overload = next(o for o in REGISTRY.overloads(name) if o.accepts(args))
    cost = overload.cost
    return cost(args, result) if callable(cost) else (1 if cost is None else cost)


def test_costs_follow_kubernetes_call_cost():
    assert _cost("lowerAscii", ("a" * 25,)) == 3  # ceil(25 * 0.1)
    assert _cost("substring", ("©" * 10, 1)) == 1  # code points, not bytes
    assert _cost("replace", ("a" * 25, "a", "b")) == 5  # ceil(25 * 2 * 0.1)
    assert _cost("split", ("a" * 25, ",")) == 5
    assert _cost("indexOf", ("©" * 10, "x")) == 2  # floor(20 bytes * 0.1)
    assert _cost("join", (["a"] * 3,), "aaa") == 1  # ceil(3 * 2 * 0.1)
    assert _cost("format", ("%s" * 15, [])) == 3  # cel-go default: ceil(30 * 0.1)
    assert _cost("charAt", ("abc", 1)) == 1


# --- through CEL ----------------------------------------------------------------------------------
def test_through_cel():
    assert run("'%e'.format([3.14]) == '3.140000×10⁰⁰'") is True
    assert run("x.split(',', 2)", x="a,b,c") == ["a", "b,c"]
    assert run("['a', 'b'].join('-')") == "a-b"
    assert run('strings.quote("two\\n")') == '"two\\n"'
    assert "index out of range: 30" in error_of("'tacocat'.charAt(30)")
    with pytest.raises(CompileError, match="found no matching overload for 'reverse'"):
        run("'abc'.reverse()")


@pytest.mark.parametrize(
    "case", k8s_library_cases("cel-go ext.Strings v2", "cel-go ext.Strings v2 (format)"), ids=lambda c: c["id"]
)
def test_k8s_conformance(case):
    assert run(case["expr"], **case["bindings"]) == case["expect"]["value"]


# --- cel-spec string_ext.json ---------------------------------------------------------------------
def _tagged(t: dict):
    ((kind, v),) = t.items()
    if kind == "list":
        return [_tagged(x) for x in v]
    return {
        "string": lambda: v,
        "int64": lambda: int(v),
        "uint64": lambda: UInt(int(v)),
        "bool": lambda: v,
        "double": lambda: float(v) if not isinstance(v, str) else float(v.replace("Infinity", "inf")),
        "null": lambda: None,
    }[kind]()


def _spec_tests() -> list[tuple[str, dict]]:
    data = json.loads(conformance_file("cel-spec", "string_ext.json").read_text())
    return [(f"{s['name']}/{t['name']}", t) for s in data["sections"] for t in s["tests"] if not t["needs_protobuf"]]


# cel-go itself skips these two (conformance/BUILD.bazel, "need a spec update"): since cel-go #1052 an offset
# past the end of the string finds nothing (-1) instead of failing.
CEL_GO_SKIPS = {"value_errors/indexof_out_of_range", "value_errors/lastindexof_out_of_range"}
# Python dicts merge the keys 1 and true (1 == True): a map representation limit of the evaluator.
DICT_KEY_COLLISION = {"format/map support (all key types)"}
# Kubernetes pins strings version 2: cel-spec's expectations for these follow version 4's formatter
# (or version 3's reverse), so in the admission environment they give the version-2 result instead.
KUBERNETES_V2_DIFFERS = {
    "format/scientific notation formatting clause",
    "format/default precision for fixed-point clause with int",
    "format/default precision for fixed-point clause with uint",
    "format/default precision for scientific notation",
    "format/default precision for scientific notation with int",
    "format/default precision for scientific notation with uint",
    "format/NaN support for scientific notation",
    "format/positive infinity support for scientific notation",
    "format/negative infinity support for scientific notation",
    "format/NaN support for decimal",
    "format/positive infinity support for decimal",
    "format/negative infinity support for decimal",
    "format/positive infinity support for fixed-point",
    "format/negative infinity support for fixed-point",
    "format/list support for string",
    "format/map support for string",
    "format/map support (all key types)",
    "format/dyntype support for scientific notation",
    "format/dyntype NaN/infinity support",
    "format/dyntype support for lists",
    "format/dyntype support for maps",
    "format/scientific notation formatting clause in a string variable",
    "reverse/empty",
    "reverse/single_character",
    "reverse/multiple",
}


def _outcome(program_env: Env, test: dict):
    bindings = {k: _tagged(v["value"] if "value" in v else v) for k, v in test["bindings"].items()}
    try:
        return "value", compile_program(test["expr"], env=program_env).evaluate(bindings).value
    except CELError as e:
        return "error", str(e)


def _assert_expected(test: dict, outcome) -> None:
    if "value" in test["expect"]:
        want = _tagged(test["expect"]["value"])
        assert outcome[0] == "value", outcome
        assert type(outcome[1]) is type(want) and equals(outcome[1], want), outcome
    else:
        assert outcome[0] == "error", outcome


SPEC_ENV = Env({"str_var": DYN}, homogeneous_literals=False, registry=S.strings_registry(5), name="cel-spec-strings")


@pytest.mark.parametrize(
    "name, test",
    [t for t in _spec_tests() if t[0] not in CEL_GO_SKIPS | DICT_KEY_COLLISION],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_cel_spec_string_ext_latest_version(name, test):
    env = (
        SPEC_ENV
        if not test["disable_check"]
        else Env({"str_var": DYN}, check=False, registry=SPEC_ENV.registry, name="cel-spec-strings-unchecked")
    )
    _assert_expected(test, _outcome(env, test))


@pytest.mark.parametrize(
    "name, test", [pytest.param(*t, id=t[0]) for t in _spec_tests() if t[0] not in CEL_GO_SKIPS | KUBERNETES_V2_DIFFERS]
)
def test_cel_spec_string_ext_in_admission_env(name, test):
    env = admission_env(("str_var",))
    if test["disable_check"]:
        env = Env(env.variables, check=False, name="admission-unchecked")
    _assert_expected(test, _outcome(env, test))


def test_admission_env_gives_version_2_where_cel_spec_differs():
    assert run("'%e'.format([2.71828])") == "2.718280×10⁰⁰"
    assert run("'%s'.format([[1, 2]])") == "[1, 2]"
    assert "decimal clause can only be used on integers" in error_of("'%d'.format([double('NaN')])")


@pytest.mark.parametrize(
    "expr, message",
    [
        ("'%s'.format(['a', 'b'])", "too many arguments supplied to string.format (expected 1, got 2)"),
        ("'%s %s'.format(['a'])", "index 1 out of range"),
        ("'%q'.format([1])", 'could not parse formatting clause: unrecognized formatting clause "q"'),
    ],
)
def test_literal_format_calls_are_checked_at_compile_time(expr, message):
    with pytest.raises(CompileError) as info:
        run(expr)
    assert message in str(info.value)


def test_non_literal_format_calls_are_not_rejected_early():
    assert run("'%s'.format(xs)", xs=["a"]) == "a"
    assert "index 1 out of range" in error_of("'%s %s'.format(xs)", xs=["a"])


def test_kubernetes_mixed_format_arguments():
    # From Kubernetes' CRD validation test (unicode strings, "strings version 2").
    assert (
        run(
            "'%d %s %f %s %s'.format([1, 'abc', 1.0, duration('1m'), timestamp('2000-01-01T00:00:00.000Z')]) "
            "== '1 abc 1.000000 60s 2000-01-01T00:00:00Z'"
        )
        is True
    )


def test_format_checker_reports_a_trailing_percent_before_missing_arguments():
    """cel-go's compile-time format check fetches no argument, so `'filler %'.format([])` is "unexpected end
    of string" at compile time; at run time (the receiver not a literal) the missing argument comes first."""
    with pytest.raises(CompileError, match="unexpected end of string"):
        compile_program("'filler %'.format([])", env=admission_env())
    with pytest.raises(CompileError, match="index 1 out of range"):
        compile_program("'%s %s'.format(['a'])", env=admission_env())
    program = compile_program("x.format([])", env=admission_env(("x",)))
    with pytest.raises(EvaluationError, match="index 0 out of range"):
        program.evaluate({"x": "filler %"})
