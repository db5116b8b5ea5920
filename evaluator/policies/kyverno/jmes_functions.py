"""Kyverno's custom JMESPath functions (pkg/engine/jmespath), on top of the standard ones."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
import math
import posixpath
import re
from typing import Any, Callable

from fractions import Fraction

import yaml

from evaluator.admission.yaml_aliases import safe_load
from jmespath import functions as jfunctions

from . import wildcard
from evaluator.cel.library import quantity as k8s_quantity
from evaluator.k8s import go_time

from .gofmt import non_finite
from .units import parse_duration


class FunctionError(Exception):
    pass


def _fmt(name: str, msg: str) -> FunctionError:
    return FunctionError(f"JMESPath function '{name}': {msg}")


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _arg(name: str, args: list, i: int, kind: str) -> Any:
    if i >= len(args):
        raise _fmt(name, f"{i + 1} argument is out of bounds ({len(args)})")
    v = args[i]
    ok = isinstance(v, str) if kind == "String" else _is_num(v)
    if not ok:
        raise _fmt(name, f"argument #{i + 1} is not of type {kind}")
    return v


def _iface_string(v: object) -> str | None:
    if isinstance(v, str):
        return v
    if _is_num(v):
        from .gofmt import format_g

        return format_g(float(v))
    return None


def _go_regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern.replace("(?P<", "(?P<").replace("\\z", "\\Z"))
    except re.error as err:
        raise FunctionError(f"error parsing regexp: {err}") from None


def _go_repl(template: str) -> Callable[[re.Match[str]], str]:
    """regexp.ReplaceAll template expansion ($1, ${name})."""
    token = re.compile(r"\$(\$|\{(\w+)\}|(\w+))")

    def repl(m: re.Match[str]) -> str:
        def sub(t: re.Match[str]) -> str:
            if t.group(1) == "$":
                return "$"
            ref = t.group(2) or t.group(3)
            try:
                g = m.group(int(ref)) if ref.isdigit() else m.group(ref)
            except (IndexError, re.error):
                return ""
            return g or ""

        return token.sub(sub, template)

    return repl


def _parse_time(name: str, text: str, layout: str = "") -> dt.datetime:
    """time.Parse(layout, text), as Kyverno's time functions read their arguments; an empty layout is RFC 3339
    (Kyverno's default)."""
    try:
        return go_time.parse(layout or go_time.RFC3339, text)
    except go_time.GoTimeError as exc:
        raise _fmt(name, str(exc)) from None


def _rfc3339(t: dt.datetime) -> str:
    if t.utcoffset() == dt.timedelta(0):
        base = t.strftime("%Y-%m-%dT%H:%M:%S")
        frac = f".{t.microsecond:06d}".rstrip("0") if t.microsecond else ""
        return base + frac + "Z"
    s = t.isoformat()
    return s


def _go_duration_string(ns: int) -> str:
    if ns == 0:
        return "0s"
    neg = ns < 0
    ns = abs(ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                v = ns / size
                s = f"{v:.9f}".rstrip("0").rstrip(".")
                return ("-" if neg else "") + s + unit
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    secs = rem / 1e9
    s = f"{secs:.9f}".rstrip("0").rstrip(".")
    out = (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + s + "s"
    return ("-" if neg else "") + out


class _Operand:
    """Arithmetic operand (arithmetic.go parseArithemticOperands): a number, else a string that parses as a
    resource.Quantity, else as a Go duration (so "12" is a quantity and "12s" a duration)."""

    def __init__(self, name: str, v: object, idx: int) -> None:
        self.kind: str | None = None
        self.value: Any = None
        if _is_num(v):
            self.kind, self.value = "num", float(v)  # type: ignore[arg-type]
        elif isinstance(v, str):
            try:
                self.kind, self.value = "qty", k8s_quantity.parse_quantity(v)
            except k8s_quantity.QuantityError:
                d = parse_duration(v)
                if d is not None:
                    self.kind, self.value = "dur", d
        if self.kind is None:
            raise _fmt(name, "invalid operands")


def _arith(name: str, args: list) -> tuple[_Operand, _Operand]:
    first, second = _Operand(name, args[0], 0), _Operand(name, args[1], 1)
    return first, second


def _go_g(f: float) -> str:
    """fmt's %v of a float64 (strconv 'g', shortest): what Kyverno feeds ParseQuantity for a scalar."""
    if f == math.trunc(f) and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


def _go_g_verb(f: float) -> str:
    """fmt's %g of a float64: shortest digits, exponent form from 1e21 (Go's threshold)."""
    special = non_finite(f)
    return _go_g(f) if special is None else special


def _scalar_quantity(name: str, f: float) -> k8s_quantity.Quantity:
    try:
        return k8s_quantity.parse_quantity(_go_g(f))
    except k8s_quantity.QuantityError as err:
        raise FunctionError(str(err)) from None


def _seconds(ns: int) -> float:
    """time.Duration.Seconds: whole seconds plus the float of the nanosecond rest."""
    sec, nsec = int(ns / 1_000_000_000), ns - int(ns / 1_000_000_000) * 1_000_000_000
    return float(sec) + nsec / 1e9


def _go_trunc_mod(a: int, b: int) -> int:
    """Go's `%` on integers: the remainder has the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _add(name: str, a: _Operand, b: _Operand, sign: int = 1) -> object:
    if a.kind == b.kind == "num":
        return a.value + sign * b.value
    if a.kind == b.kind == "dur":
        return _go_duration_string(a.value + sign * b.value)
    if a.kind == b.kind == "qty":
        total = a.value.add(b.value) if sign > 0 else a.value.sub(b.value)
        return k8s_quantity.canonical_string(total)
    raise _fmt(name, "Types mismatch")


class KyvernoFunctions(jfunctions.Functions):
    """Standard functions plus Kyverno's, dispatched by name."""

    def call_function(self, function_name, resolved_args):
        fn = _TABLE.get(function_name)
        if fn is not None:
            return fn(resolved_args)
        return super().call_function(function_name, resolved_args)


def _compare(a):
    x, y = _arg("compare", a, 0, "String"), _arg("compare", a, 1, "String")
    return (x > y) - (x < y)


def _split(a):
    s, sep = _arg("split", a, 0, "String"), _arg("split", a, 1, "String")
    return list(s) if sep == "" else s.split(sep)


def _regex_replace(name: str, literal: bool):
    def f(a):
        pattern = _arg(name, a, 0, "String")
        src = _iface_string(a[1])
        if src is None:
            raise _fmt(name, "argument #2 is not of type String or Real")
        repl = _iface_string(a[2])
        if repl is None:
            raise _fmt(name, "argument #3 is not of type String or Real")
        rx = _go_regex(pattern)
        return rx.sub((lambda m: repl) if literal else _go_repl(repl), src)

    return f


def _regex_match(a):
    pattern = _arg("regex_match", a, 0, "String")
    src = _iface_string(a[1])
    if src is None:
        raise _fmt("regex_match", "argument #2 is not of type String or Real")
    return _go_regex(pattern).search(src) is not None


def _pattern_match(a):
    pattern = _arg("pattern_match", a, 0, "String")
    src = _iface_string(a[1])
    if src is None:
        raise _fmt("pattern_match", "argument #2 is not of type String or Real")
    return wildcard.match(pattern, src)


def _label_match(a):
    if not isinstance(a[0], dict):
        raise _fmt("label_match", "argument #0 is not of type Object")
    if not isinstance(a[1], dict):
        raise _fmt("label_match", "argument #1 is not of type Object")
    return all(k in a[1] and a[1][k] == v for k, v in a[0].items())


def _to_boolean(a):
    s = _arg("to_boolean", a, 0, "String")
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    raise _fmt("to_boolean", f"lowercase argument must be 'true' or 'false' (provided: '{s}')")


def _sum(a):
    items = a[0]
    if not isinstance(items, list):
        raise _fmt("sum", "Types mismatch")
    if not items:
        raise _fmt("sum", "at least one element in the array is required")
    result = items[0]
    for item in items[1:]:
        result = _add("sum", *_arith("sum", [result, item]))
    return result


def _multiply(a):
    x, y = _arith("multiply", a)
    if x.kind == y.kind == "num":
        return x.value * y.value
    if x.kind == "num" and y.kind != "num":
        x, y = y, x  # scalar * quantity|duration is quantity|duration * scalar
    if y.kind != "num":
        raise _fmt("multiply", "Types mismatch")
    if x.kind == "dur":
        return _go_duration_string(int(_seconds(x.value) * y.value * 1e9))
    q = _scalar_quantity("multiply", y.value)
    product = k8s_quantity.Quantity(x.value.unscaled * q.unscaled, x.value.scale + q.scale, True, x.value.format)
    return k8s_quantity.canonical_string(product)


def _divide(a):
    x, y = _arith("divide", a)
    if x.kind == y.kind == "num":
        if y.value == 0:
            raise _fmt("divide", "Zero divisor passed")
        return x.value / y.value
    if x.kind == y.kind == "qty":
        divisor = y.value.as_approximate_float()
        if divisor == 0:
            raise _fmt("divide", "Zero divisor passed")
        return x.value.as_approximate_float() / divisor
    if x.kind == y.kind == "dur":
        if _seconds(y.value) == 0:
            raise _fmt("divide", "Zero divisor passed")
        return _seconds(x.value) / _seconds(y.value)
    if y.kind != "num" or x.kind == "num":
        raise _fmt("divide", "Types mismatch")
    if y.value == 0:
        raise _fmt("divide", "Zero divisor passed")
    if x.kind == "dur":
        return _go_duration_string(int(_seconds(x.value) / y.value * 1e9))
    # inf.Dec QuoRound(dividend, divisor, max of both scales, RoundDown)
    q = _scalar_quantity("divide", y.value)
    scale = max(-x.value.scale, -q.scale)
    exact = x.value.exact() / q.exact() * Fraction(10) ** scale
    quotient = k8s_quantity.Quantity(math.trunc(exact), -scale, True, x.value.format)
    return k8s_quantity.canonical_string(quotient)


def _modulo(a):
    x, y = _arith("modulo", a)
    if x.kind != y.kind:
        raise _fmt("modulo", "Types mismatch")
    if x.kind == "dur":
        if y.value == 0:
            raise _fmt("modulo", "Zero divisor passed")
        return _go_duration_string(_go_trunc_mod(x.value, y.value))
    if x.kind == "qty":
        f1, f2 = x.value.as_approximate_float(), y.value.as_approximate_float()
    else:
        f1, f2 = x.value, y.value
    if not (math.isfinite(f1) and math.isfinite(f2)) or f1 != math.trunc(f1) or f2 != math.trunc(f2):
        raise _fmt("modulo", "Non-integer argument(s) passed for modulo")
    i1, i2 = int(f1), int(f2)
    if i2 == 0:
        raise _fmt("modulo", "Zero divisor passed")
    if x.kind == "num":
        return float(_go_trunc_mod(i1, i2))
    remainder = k8s_quantity.Quantity(_go_trunc_mod(i1, i2), 0, False, x.value.format)
    return k8s_quantity.canonical_string(remainder)


def _round(a):
    v, n = _arg("round", a, 0, "Float64"), _arg("round", a, 1, "Float64")
    if not math.isfinite(n) or n != math.trunc(n):
        raise _fmt("round", "Non-integer argument(s) passed for round off")
    if n < 0:  # Kyverno formats argOutOfBoundsError without its two numbers
        raise _fmt("round", "%!d(MISSING) argument is out of bounds (%!d(MISSING))")
    shift = math.pow(10, int(n))
    x = v * shift
    rounded = math.trunc(x)  # math.Round: half away from zero
    if abs(x - rounded) >= 0.5:
        rounded += math.copysign(1, x)
    return rounded / shift


def _b64decode(a):
    s = _arg("base64_decode", a, 0, "String")
    try:
        return base64.b64decode(s, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError) as err:
        raise FunctionError(f"illegal base64 data at input byte 0: {err}") from None


def _truncate(a):
    s, n = _arg("truncate", a, 0, "String"), _arg("truncate", a, 1, "Float64")
    return s[: max(int(n), 0)]


def _semver_compare(a):
    from .semver import satisfies

    v, r = _arg("semver_compare", a, 0, "String"), _arg("semver_compare", a, 1, "String")
    return satisfies(v, r)


def _parse_json(a):
    s = _arg("parse_json", a, 0, "String")
    try:
        return json.loads(s)
    except ValueError as err:
        raise FunctionError(str(err)) from None


def _parse_yaml(a):
    s = _arg("parse_yaml", a, 0, "String")
    try:
        return json.loads(json.dumps(safe_load(s), default=str))
    except yaml.YAMLError as err:
        raise FunctionError(str(err).replace("\n", " ")) from None


def _lookup(a):
    coll, key = a[0], a[1]
    if isinstance(coll, dict):
        if not isinstance(key, str):
            raise _fmt("lookup", "argument #2 is not of type String")
        return coll.get(key)
    if isinstance(coll, list):
        if not _is_num(key):
            raise _fmt("lookup", "argument #2 is not of type Number")
        if not math.isfinite(key) or key != math.trunc(key):  # intNumber's error, wrapped by lookup
            raise _fmt("lookup", f"argument #2: expected an integer number but got: {_go_g_verb(float(key))}")
        i = int(key)
        return coll[i] if 0 <= i < len(coll) else None
    raise _fmt("lookup", "argument #1 is not of type Object or Array")


def _items(a):
    coll, kname, vname = a[0], a[1], a[2]
    if isinstance(coll, dict):
        return [{kname: k, vname: coll[k]} for k in sorted(coll)]
    if isinstance(coll, list):
        return [{kname: float(i), vname: v} for i, v in enumerate(coll)]
    raise _fmt("items", "argument #1 is not of type Object or Array")


def _object_from_lists(a):
    keys, values = a[0], a[1]
    if not isinstance(keys, list):
        raise _fmt("object_from_lists", "argument #1 is not of type Array")
    if not isinstance(values, list):
        raise _fmt("object_from_lists", "argument #2 is not of type Array")
    out = {}
    for i, k in enumerate(keys):
        ks = _iface_string(k)
        if ks is None:
            raise _fmt("object_from_lists", "argument #1 is not of type String or Real")
        out[ks] = values[i] if i < len(values) else None
    return out


def _now_utc(a):
    return _rfc3339(dt.datetime.now(dt.timezone.utc).replace(microsecond=0))


def _time_since(a):
    layout = _arg("time_since", a, 0, "String")
    start = _parse_time("time_since", _arg("time_since", a, 1, "String"), layout)
    until = _arg("time_since", a, 2, "String")  # Kyverno checks all three as strings; "" is now
    end = _parse_time("time_since", until, layout) if until else dt.datetime.now(dt.timezone.utc)
    return _go_duration_string(int((end - start).total_seconds() * 1e9))


def _time_parse(a):
    """jpTimeParse: a numeric layout means the value is Unix seconds; else a Go layout."""
    layout, text = _arg("time_parse", a, 0, "String"), _arg("time_parse", a, 1, "String")
    if layout.isdigit():
        try:
            return _rfc3339(dt.datetime.fromtimestamp(int(text), dt.timezone.utc))
        except ValueError:
            raise _fmt("time_parse", f'strconv.ParseInt: parsing "{text}": invalid syntax') from None
    return _rfc3339(_parse_time("time_parse", text, layout))


def _time_to_cron(a):
    """jpTimeToCron: "minute hour day month weekday" of the time, in its own zone."""
    t = _parse_time("time_to_cron", _arg("time_to_cron", a, 0, "String"))
    return f"{t.minute} {t.hour} {t.day} {t.month} {(t.weekday() + 1) % 7}"


def _time_add(a):
    t = _parse_time("time_add", _arg("time_add", a, 0, "String"))
    d = parse_duration(_arg("time_add", a, 1, "String"))
    if d is None:
        raise _fmt("time_add", "invalid duration")
    return _rfc3339(t + dt.timedelta(microseconds=d / 1000))


def _time_utc(a):
    t = _parse_time("time_utc", _arg("time_utc", a, 0, "String"))
    return _rfc3339(t.astimezone(dt.timezone.utc))


def _time_diff(a):
    t1 = _parse_time("time_diff", _arg("time_diff", a, 0, "String"))
    t2 = _parse_time("time_diff", _arg("time_diff", a, 1, "String"))
    return _go_duration_string(int((t2 - t1).total_seconds() * 1e9))


def _time_cmp(name, op):
    def f(a):
        t1 = _parse_time(name, _arg(name, a, 0, "String"))
        t2 = _parse_time(name, _arg(name, a, 1, "String"))
        return op(t1, t2)

    return f


def _time_between(a):
    t = _parse_time("time_between", _arg("time_between", a, 0, "String"))
    s = _parse_time("time_between", _arg("time_between", a, 1, "String"))
    e = _parse_time("time_between", _arg("time_between", a, 2, "String"))
    return s < t < e


def _hash(name, algo):
    def f(a):
        return hashlib.new(algo, _arg(name, a, 0, "String").encode()).hexdigest()

    return f


def _path_canonicalize(a):
    s = _arg("path_canonicalize", a, 0, "String")
    return posixpath.normpath(s) if s else ""


def _is_external_url(a):
    from urllib.parse import urlparse

    s = _arg("is_external_url", a, 0, "String")
    host = urlparse(s).hostname or ""
    return not (
        host in ("localhost", "") or host.startswith("127.") or host.endswith(".svc") or host.endswith(".cluster.local")
    )


def _with_default_registry(image: str) -> str:
    first, slash, _ = image.partition("/")
    has_registry = slash and ("." in first or ":" in first or first == "localhost")
    return image if has_registry else f"docker.io/{image}"


def _image_normalize(a):
    from .images import parse_image

    s = _arg("image_normalize", a, 0, "String")
    info = parse_image(s)
    if info is None:  # Kyverno names the image with the default registry it tried
        raise _fmt(
            "image_normalize",
            f"bad image: {_with_default_registry(s)}, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: "
            "invalid reference format",
        )
    return info["reference"]


def _x509_decode(a):
    from .x509 import X509Error, decode

    try:
        return decode(_arg("x509_decode", a, 0, "String"))
    except X509Error as err:
        raise FunctionError(str(err)) from None


def _random(a):
    raise _fmt("random", "random is not supported in a deterministic simulator")


_TABLE: dict[str, Callable[[list], Any]] = {
    "compare": _compare,
    "equal_fold": lambda a: (
        _arg("equal_fold", a, 0, "String").casefold() == _arg("equal_fold", a, 1, "String").casefold()
    ),
    "replace": lambda a: _arg("replace", a, 0, "String").replace(
        _arg("replace", a, 1, "String"),
        _arg("replace", a, 2, "String"),
        int(_arg("replace", a, 3, "Float64")) if int(a[3]) >= 0 else -1,
    ),
    "replace_all": lambda a: _arg("replace_all", a, 0, "String").replace(
        _arg("replace_all", a, 1, "String"), _arg("replace_all", a, 2, "String")
    ),
    "to_upper": lambda a: _arg("to_upper", a, 0, "String").upper(),
    "to_lower": lambda a: _arg("to_lower", a, 0, "String").lower(),
    "trim": lambda a: _arg("trim", a, 0, "String").strip(_arg("trim", a, 1, "String")) if a[1] else a[0],
    "trim_prefix": lambda a: _arg("trim_prefix", a, 0, "String").removeprefix(_arg("trim_prefix", a, 1, "String")),
    "split": _split,
    "regex_replace_all": _regex_replace("regex_replace_all", False),
    "regex_replace_all_literal": _regex_replace("regex_replace_all_literal", True),
    "regex_match": _regex_match,
    "pattern_match": _pattern_match,
    "label_match": _label_match,
    "to_boolean": _to_boolean,
    "add": lambda a: _add("add", *_arith("add", a)),
    "sum": _sum,
    "subtract": lambda a: _add("subtract", *_arith("subtract", a), sign=-1),
    "multiply": _multiply,
    "divide": _divide,
    "modulo": _modulo,
    "round": _round,
    "base64_decode": _b64decode,
    "base64_encode": lambda a: base64.b64encode(_arg("base64_encode", a, 0, "String").encode()).decode(),
    "time_since": _time_since,
    "time_now": _now_utc,
    "time_now_utc": _now_utc,
    "path_canonicalize": _path_canonicalize,
    "truncate": _truncate,
    "semver_compare": _semver_compare,
    "parse_json": _parse_json,
    "parse_yaml": _parse_yaml,
    "lookup": _lookup,
    "items": _items,
    "object_from_lists": _object_from_lists,
    "random": _random,
    "x509_decode": _x509_decode,
    "time_add": _time_add,
    "time_parse": _time_parse,
    "time_to_cron": _time_to_cron,
    "time_utc": _time_utc,
    "time_diff": _time_diff,
    "time_before": _time_cmp("time_before", lambda x, y: x < y),
    "time_after": _time_cmp("time_after", lambda x, y: x > y),
    "time_between": _time_between,
    "image_normalize": _image_normalize,
    "is_external_url": _is_external_url,
    "sha256": _hash("sha256", "sha256"),
    "sha1": _hash("sha1", "sha1"),
    "md5": _hash("md5", "md5"),
}
