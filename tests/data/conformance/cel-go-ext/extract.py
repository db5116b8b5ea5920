"""Rebuild cases.jsonl from a google/cel-go checkout: `python extract.py <cel-go dir> <commit>`.

Reads the Go test tables named in TABLES (their `expr`, `err`, `in`, `out`, ... fields) with a small reader
of Go literals; a case whose Go values it cannot read (protobuf messages, Go expressions) is left out and
counted. Nothing is executed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

# (file, test function, how the Go test judges an entry)
TABLES = [
    ("ext/strings_test.go", "stringTests", "true_or_error"),
    ("ext/lists_test.go", "TestLists", "true_or_error"),
    ("ext/lists_test.go", "TestListsRuntimeErrors", "eval_error"),
    ("ext/sets_test.go", "TestSets", "true"),
    ("ext/sets_test.go", "TestSetsMembershipRewriter", "out"),
    ("ext/comprehensions_test.go", "TestTwoVarComprehensions", "true"),
    ("ext/comprehensions_test.go", "TestTwoVarComprehensionsStaticErrors", "compile_error"),
    ("ext/comprehensions_test.go", "TestTwoVarComprehensionsRuntimeErrors", "eval_error"),
    ("ext/formatting_test.go", "TestStringFormat", "format"),
    ("cel/cel_test.go", "TestOptionalValuesEval", "out"),
    ("cel/cel_test.go", "TestOptionalValuesEvalErrorCases", "eval_error"),
]

_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>`[^`]*`)|(?P<str>\"(?:\\.|[^\"\\])*\")"
    r"|(?P<rune>'(?:\\.|[^'\\])*')|(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"|(?P<ident>[A-Za-z_][\w.]*)|(?P<punct>[{}()\[\],:&*])",
    re.S,
)


class Unsupported(Exception):
    pass


def go_unquote(lit: str) -> str:
    if lit.startswith("`"):
        return lit[1:-1]
    body, out, i = lit[1:-1], [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"'}
    raw = bytearray()

    def flush():
        if raw:
            out.append(raw.decode("utf-8"))
            raw.clear()

    while i < len(body):
        c = body[i]
        if c != "\\":
            flush()
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in simple:
            flush()
            out.append(simple[e])
            i += 2
        elif e == "x":
            raw.append(int(body[i + 2 : i + 4], 16))
            i += 4
        elif e in "uU":
            n = 4 if e == "u" else 8
            flush()
            out.append(chr(int(body[i + 2 : i + 2 + n], 16)))
            i += 2 + n
        elif e in "01234567":
            raw.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise Unsupported(f"escape \\{e}")
    flush()
    return "".join(out)


def tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            out.append(("other", text[pos]))
            pos += 1
            continue
        pos = m.end()
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append((kind, m.group()))
    return out


class Reader:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else ("eof", "")

    def take(self, value=None):
        tok = self.t[self.i]
        if value is not None and tok[1] != value:
            raise SyntaxError(f"wanted {value!r}, got {tok!r}")
        self.i += 1
        return tok

    def skip_balanced(self):
        opener = self.take()[1]
        closer = {"{": "}", "(": ")", "[": "]"}[opener]
        depth = 1
        while depth:
            v = self.take()[1]
            depth += (v == opener) - (v == closer)

    def type_expr(self) -> str:
        kind, v = self.peek()
        if v in ("*", "&"):
            self.take()
            return v + self.type_expr()
        if v == "[":
            self.take()
            self.take("]")
            return "[]" + self.type_expr()
        if v == "map":
            self.take()
            self.take("[")
            key = self.type_expr()
            self.take("]")
            return f"map[{key}]" + self.type_expr()
        if v == "struct":
            self.take()
            self.skip_balanced()
            return "struct{...}"
        if kind == "ident":
            self.take()
            return v
        raise Unsupported("type")

    def value(self):
        kind, v = self.peek()
        if kind in ("str", "raw"):
            self.take()
            return go_unquote(v)
        if kind == "num":
            self.take()
            return float(v) if any(c in v for c in ".eE") else int(v)
        if v == "{":
            return self.composite(None)
        if v in ("&", "[", "*") or v == "map" or kind == "ident":
            if kind == "ident" and self.peek(1)[1] == "(":
                return self.call()
            if kind == "ident" and v != "map" and self.peek(1)[1] != "{":
                self.take()
                return self.ident(v)
            t = self.type_expr()
            if self.peek()[1] == "{":
                return self.composite(t)
            return self.ident(t)
        raise Unsupported(f"value {v!r}")

    def ident(self, name):
        known = {
            "true": True,
            "false": False,
            "nil": None,
            "types.True": True,
            "types.False": False,
            "types.NullValue": None,
            "types.OptionalNone": {"$optional": None},
        }
        if name in known:
            return known[name]
        if name.startswith("cel.") and name.endswith("Type"):
            return name
        raise Unsupported(name)

    def call(self):
        name = self.take()[1]
        self.take("(")
        args = []
        while self.peek()[1] != ")":
            try:
                args.append(self.value())
            except Unsupported as e:
                args.append(Unsupported(str(e)))
                self._skip_to_comma()
            if self.peek()[1] == ",":
                self.take()
        self.take(")")
        if name == "types.OptionalOf":
            return {"$optional": [args[0]]}
        if name in ("types.Int", "types.String", "types.Bool", "types.Double", "adapter.NativeToValue"):
            return args[0]
        if name in ("types.Uint",):
            return {"$uint": args[0]}
        if name in ("int", "int64", "int32", "uint", "uint64", "float64"):
            return args[0] if not name.startswith("uint") else {"$uint": args[0]}
        if any(isinstance(a, Unsupported) for a in args):
            raise Unsupported(name)
        if name == "cel.Variable":
            return {"$variable": args}
        if name in ("cel.ListType", "cel.MapType", "cel.OptionalType"):
            return {"$type": name.split(".")[1], "args": args}
        raise Unsupported(name)

    def composite(self, type_name):
        self.take("{")
        items, keyed = [], {}
        while self.peek()[1] != "}":
            if self.peek(1)[1] == ":" and self.peek()[0] == "ident":
                key = self.take()[1]
                self.take(":")
                try:
                    keyed[key] = self.value()
                    if self.peek()[1] not in (",", "}"):  # a Go expression (`"1." + strings.Repeat(...)`)
                        raise Unsupported(f"expression after {key}")
                except Unsupported as e:
                    keyed[key] = Unsupported(str(e))
                    self._skip_to_comma()
            else:
                try:
                    first = self.value()
                except Unsupported as e:
                    first = Unsupported(str(e))
                    self._skip_to_comma()
                if self.peek()[1] == ":":
                    self.take()
                    try:
                        keyed[first] = self.value()
                    except Unsupported as e:
                        keyed[first] = Unsupported(str(e))
                        self._skip_to_comma()
                else:
                    items.append(first)
            if self.peek()[1] == ",":
                self.take()
        self.take("}")
        if type_name and type_name.startswith("&"):
            raise Unsupported(type_name)
        if keyed and type_name and type_name.startswith("map"):
            return dict(keyed)
        if keyed:
            return {"$fields": keyed} if type_name is None else dict(keyed)
        if type_name and type_name.startswith("map"):
            return {}
        return items

    def _skip_to_comma(self):
        depth = 0
        while True:
            v = self.peek()[1]
            if depth == 0 and v in (",", "}", ")"):
                return
            if v in "{([":
                depth += 1
            elif v in "})]":
                depth -= 1
            self.take()


def table(text: str, name: str) -> list:
    m = re.search(rf"(func {name}\(|var {name} = )", text)
    if not m:
        raise SystemExit(f"no {name}")
    r = Reader(tokens(text[m.start() :]))
    # to the first `[]struct {...}{`
    while not (r.peek()[1] == "struct" and r.t[r.i - 1][1] == "]"):
        r.take()
    r.take()
    r.skip_balanced()
    r.take("{")
    entries = []
    while r.peek()[1] != "}":
        entries.append(r.composite(None))
        if r.peek()[1] == ",":
            r.take()
    return [e["$fields"] if isinstance(e, dict) and "$fields" in e else e for e in entries]


def _bad(v) -> bool:
    if isinstance(v, Unsupported):
        return True
    if isinstance(v, dict):
        return any(_bad(k) or _bad(x) for k, x in v.items())
    if isinstance(v, list):
        return any(_bad(x) for x in v)
    return False


def _type_text(t) -> str:
    if isinstance(t, dict) and "$type" in t:
        inner = ", ".join(_type_text(a) for a in t["args"])
        return {"ListType": "list", "MapType": "map", "OptionalType": "optional_type"}[t["$type"]] + f"({inner})"
    if isinstance(t, Unsupported):
        raise Unsupported("type")
    return {"cel.IntType": "int", "cel.StringType": "string", "cel.DoubleType": "double"}.get(t, "dyn")


def main(root: str, commit: str) -> None:
    out, left_out = [], {}
    for path, name, judge in TABLES:
        text = subprocess.run(
            ["git", "-C", root, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
        ).stdout
        for n, entry in enumerate(table(text, name)):
            case_id = f"{path}#{name}/{n}"
            used = (
                "expr",
                "err",
                "wantErr",
                "parseOnly",
                "in",
                "out",
                "vars",
                "format",
                "formatArgs",
                "dynArgs",
                "expectedOutput",
                "locale",
            )
            if _bad({k: v for k, v in entry.items() if k in used}):
                left_out[case_id] = "Go value not readable as data"
                continue
            case = {"id": case_id, "source": f"google/cel-go {commit} {path} {name}", "judge": judge}
            if judge == "format":
                args = entry.get("formatArgs", "")
                case["expr"] = f"{json.dumps(entry['format'], ensure_ascii=False)}.format([{args}])"
                if entry.get("dynArgs"):  # Go values the test declares as dyn variables
                    case["in"] = entry["dynArgs"]
                for key in ("err", "expectedOutput", "skipCompileCheck", "locale"):
                    if key in entry:
                        case[key] = entry[key]
            else:
                case["expr"] = entry["expr"]
                for key in ("err", "wantErr", "parseOnly", "in", "out", "unchecked"):
                    if key in entry:
                        case["err" if key == "wantErr" else key] = entry[key]
            declared = entry.get("vars") or entry.get("opts")
            if declared:
                try:
                    case["vars"] = {v["$variable"][0]: _type_text(v["$variable"][1]) for v in declared}
                except Unsupported:
                    left_out[case_id] = "variable type not readable"
                    continue
            out.append(case)
    here = Path(__file__).parent
    with open(here / "cases.jsonl", "w") as f:
        for case in out:
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + "\n")
    (here / "left_out.json").write_text(json.dumps(left_out, indent=1, sort_keys=True) + "\n")
    print(len(out), "cases,", len(left_out), "left out")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
