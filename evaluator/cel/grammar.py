"""cel-python's Lark grammar, extended to the CEL syntax Kubernetes accepts.

We read `celpy/cel.lark` from the installed package and edit it here rather than keep a copy: optional
selection and entries (`a.?b`, `m[?k]`, `[?x]`, `{?k: v}`, `T{?f: v}`), backtick-quoted field names,
trailing commas in aggregate literals, and CEL's float literal rule (`42.` is not a float, so
`42.indexOf(...)` parses as a call). Our parser is a private Lark instance: cel-python's process-wide
`CELParser.CEL_PARSER` is left alone.

Building the LALR tables takes ~0.1-0.3 s, most of a cold command's time, so the built parser is kept on
disk (`parser_cache_path()`): a file named by the hash of the grammar text, the parser options, Lark's and
Python's versions, in the user's cache directory (`$ADMISSION_PLAYGROUND_CACHE_DIR`, else
`$XDG_CACHE_HOME/admission-playground`, else `~/.cache/admission-playground`). It is written to a temporary
file and renamed into place, so a reader never sees half a file; an unreadable, truncated or foreign file
is ignored (the parser is built again and the file replaced), and a cache directory that cannot be written
only costs the build. `ADMISSION_PLAYGROUND_CACHE_DIR=` (empty) turns the cache off. The Docker image builds
the file at image build time into /app/.cache (the Dockerfile).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path

import lark

from evaluator.cache_dir import cache_dir

_EDITS = [
    # Member syntax: optional select/index and quoted field names.
    (
        "member         : member_dot | member_dot_arg | member_index | member_object | primary",
        "member         : member_dot | member_dot_opt | member_dot_arg | member_index | member_index_opt"
        " | member_object | primary",
    ),
    (
        'member_dot     : member "." IDENT',
        "member_dot     : member DOT (IDENT | QUOTED_IDENT)\nmember_dot_opt : member DOT QMARK (IDENT | QUOTED_IDENT)",
    ),
    ('member_dot_arg : member "." IDENT "(" [exprlist] ")"', 'member_dot_arg : member DOT IDENT LPAREN [exprlist] ")"'),
    (
        'member_index   : member "[" expr "]"',
        'member_index   : member LBRACK expr "]"\nmember_index_opt : member LBRACK QMARK expr "]"',
    ),
    ('member_object  : member "{" [fieldinits] "}"', 'member_object  : member LBRACE [fieldinits] "}"'),
    ('dot_ident_arg  : "." IDENT "(" [exprlist] ")"', 'dot_ident_arg  : DOT IDENT LPAREN [exprlist] ")"'),
    ('dot_ident      : "." IDENT', "dot_ident      : DOT IDENT"),
    ('ident_arg      : IDENT "(" [exprlist] ")"', 'ident_arg      : IDENT LPAREN [exprlist] ")"'),
    ('list_lit       : "[" [exprlist] "]"', 'list_lit       : LBRACK [listelems [","]] "]"'),
    ('map_lit        : "{" [mapinits] "}"', 'map_lit        : LBRACE [mapinits [","]] "}"'),
    (
        'fieldinits     : IDENT ":" expr ("," IDENT ":" expr)*',
        'fieldinits     : fieldinit_list [","]\n'
        'fieldinit_list : fieldinit | fieldinit_list "," fieldinit\n'
        'fieldinit      : (IDENT | QUOTED_IDENT) ":" expr | fieldinit_opt\n'
        'fieldinit_opt  : QMARK (IDENT | QUOTED_IDENT) ":" expr\n'
        'listelems      : listelem | listelems "," listelem\n'
        "listelem       : expr | listelem_opt\n"
        "listelem_opt   : QMARK expr",
    ),
    (
        'mapinits       : expr ":" expr ("," expr ":" expr)*',
        'mapinits       : mapinit | mapinits "," mapinit\n'
        "mapinit        : expr COLON expr | mapinit_opt\n"
        "mapinit_opt    : QMARK expr COLON expr",
    ),
    # Operators keep their tokens so errors can point at them, as cel-go does.
    (
        'expr           : conditionalor ["?" conditionalor ":" expr]',
        'expr           : conditionalor [QMARK conditionalor ":" expr]',
    ),
    ('conditionalor  : [conditionalor "||"] conditionaland', "conditionalor  : [conditionalor OROR] conditionaland"),
    ('conditionaland : [conditionaland "&&"] relation', "conditionaland : [conditionaland ANDAND] relation"),
    (
        'FLOAT_LIT      : /-?/ DIGIT+ "." DIGIT* EXPONENT? | /-?/ DIGIT* "." DIGIT+ EXPONENT? | /-?/ DIGIT+ EXPONENT',
        'FLOAT_LIT      : /-?/ DIGIT* "." DIGIT+ EXPONENT? | /-?/ DIGIT+ EXPONENT',
    ),
]

_TOKENS = r"""
DOT            : "."
QMARK          : "?"
LPAREN         : "("
LBRACK         : "["
LBRACE         : "{"
COLON          : ":"
OROR           : "||"
ANDAND         : "&&"
QUOTED_IDENT   : /`[_a-zA-Z0-9.\-\/ ]+`/
"""

# The binary operators keep their token too: `relation_lt : relation "<"` becomes `relation LT`.
_OPERATORS = {
    '"<="': "LE",
    '">="': "GE",
    '"=="': "EQ",
    '"!="': "NE",
    '"<"': "LT",
    '">"': "GT",
    '"in"': "IN",
    '"+"': "PLUS",
    '"-"': "MINUS",
    '"*"': "STAR",
    '"/"': "SLASH",
    '"%"': "PERCENT",
    '"!"': "BANG",
}


def _operator_rules(text: str) -> str:
    lines = []
    for line in text.splitlines():
        head = line.split(":", 1)[0].strip()
        if head.startswith(("relation_", "addition_", "multiplication_", "unary_not", "unary_neg")):
            for literal, name in _OPERATORS.items():
                if line.rstrip().endswith(literal):
                    line = line.rstrip()[: -len(literal)] + name
                    break
        lines.append(line)
    extra = "\n".join(f"{name:<15}: {literal}" for literal, name in _OPERATORS.items())
    return "\n".join(lines) + "\n" + extra + "\n"


# Rules that only pass a single child through are inlined (Lark's `?rule`), so a long chain of operators
# does not build nine wrapper nodes per term.
_INLINED = (
    "expr",
    "conditionalor",
    "conditionaland",
    "relation",
    "addition",
    "multiplication",
    "unary",
    "member",
    "primary",
)

# The rules every walker of the tree looks through when they hold a single subtree: the inlined ones, and a
# list literal's element. The compiler, the cost estimator, the macros and the checker all read this one set.
PASS_THROUGH = frozenset(_INLINED + ("listelem",))


def unwrap(tree: lark.Tree) -> lark.Tree:
    """The first node below `tree` that is not a pass-through rule holding one subtree."""
    while tree.data in PASS_THROUGH and len(tree.children) == 1 and isinstance(tree.children[0], lark.Tree):
        tree = tree.children[0]
    return tree


def _celpy_grammar() -> str:
    """cel-python's `cel.lark`, read without importing `celpy` (its package imports its whole evaluator)."""
    spec = importlib.util.find_spec("celpy")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if locations:
        path = Path(locations[0]) / "cel.lark"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return resources.files("celpy").joinpath("cel.lark").read_text(encoding="utf-8")


def grammar_text() -> str:
    text = _celpy_grammar()
    for old, new in _EDITS:
        if old not in text:
            raise RuntimeError(f"cel-python's grammar changed; cannot apply edit: {old!r}")
        text = text.replace(old, new)
    lines = []
    for line in text.splitlines():
        head = line.split(":", 1)[0].strip()
        if head in _INLINED and not line.startswith(" "):
            line = "?" + line
        lines.append(line)
    return _operator_rules("\n".join(lines)) + _TOKENS


def _literal_keywords(token: lark.Token) -> lark.Token:
    """`true`, `false` and `null` lex as identifiers first; retype them, keeping their position."""
    if token.value in ("true", "false"):
        return lark.Token.new_borrow_pos("BOOL_LIT", token.value, token)
    if token.value == "null":
        return lark.Token.new_borrow_pos("NULL_LIT", token.value, token)
    return token


_OPTIONS: dict = {
    "parser": "lalr",
    "start": "expr",
    "propagate_positions": True,
    "maybe_placeholders": False,
    "priority": "invert",
}
_lock = threading.Lock()
_parser: lark.Lark | None = None


def parser_cache_path(text: str) -> Path | None:
    """Where the parser built from grammar `text` is kept (None: caching is off)."""
    directory = cache_dir()
    if directory is None:
        return None
    key = "\0".join(
        (text, repr(sorted(_OPTIONS.items())), _literal_keywords.__qualname__, lark.__version__, sys.version)
    )
    return directory / f"cel-parser-{hashlib.sha256(key.encode()).hexdigest()[:32]}.pickle"


def _load_cached(path: Path) -> lark.Lark | None:
    try:
        with path.open("rb") as f:
            loaded = lark.Lark.load(f)
    except Exception:  # noqa: BLE001 - missing, truncated, foreign: build the parser instead
        return None
    if not isinstance(loaded, lark.Lark) or loaded.options.lexer_callbacks.get("IDENT") is not _literal_keywords:
        return None
    return loaded


def _store(built: lark.Lark, path: Path) -> None:
    """Write the parser next to `path` and rename it into place (atomic); failing to write is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cel-parser-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as f:
            built.save(f)
        os.chmod(temporary, 0o644)  # like bytecode: readable by the other users of a shared install
        os.replace(temporary, path)
    except Exception:  # noqa: BLE001 - e.g. a full disk: the next process builds it again
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _build() -> lark.Lark:
    text = grammar_text()
    path = parser_cache_path(text)
    cached = _load_cached(path) if path is not None else None
    if cached is not None:
        return cached
    built = lark.Lark(text, lexer_callbacks={"IDENT": _literal_keywords}, **_OPTIONS)
    if path is not None:
        _store(built, path)
    return built


def parser() -> lark.Lark:
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = _build()
    return _parser
