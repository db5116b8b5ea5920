"""The CEL parser kept on disk: reused when valid, rebuilt (and replaced) when unreadable, never required."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.cel import grammar

EXPRESSION = "object.spec.?replicas.orValue(1) <= 5 && [?x, 1,].size() > 0"


def fresh_parser(monkeypatch: pytest.MonkeyPatch, directory: str) -> object:
    monkeypatch.setenv("ADMISSION_PLAYGROUND_CACHE_DIR", directory)
    monkeypatch.setattr(grammar, "_parser", None)
    return grammar.parser()


def cache_file(directory: Path) -> Path:
    path = grammar.parser_cache_path(grammar.grammar_text())
    assert path is not None and path.parent == directory
    return path


def test_parser_is_written_once_and_read_back(monkeypatch, tmp_path):
    built = fresh_parser(monkeypatch, str(tmp_path))
    path = cache_file(tmp_path)
    assert path.is_file()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    assert path.stat().st_mode & 0o777 == 0o644  # readable by the other users of a shared install
    stamp = path.stat().st_mtime_ns
    loaded = fresh_parser(monkeypatch, str(tmp_path))
    assert loaded is not built
    assert path.stat().st_mtime_ns == stamp  # read, not rewritten
    assert loaded.parse(EXPRESSION) == built.parse(EXPRESSION)
    # the lexer callback survives: `true` is a BOOL_LIT with its position
    token = loaded.parse("x || true").children[-1].children[0]
    assert (token.type, token.value, token.column) == ("BOOL_LIT", "true", 6)


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_an_unreadable_cache_file_is_ignored_and_replaced(monkeypatch, tmp_path, content):
    fresh_parser(monkeypatch, str(tmp_path))
    path = cache_file(tmp_path)
    path.write_bytes(content)
    assert grammar._load_cached(path) is None
    parser = fresh_parser(monkeypatch, str(tmp_path))
    assert parser.parse("1 + 2") is not None
    replaced = grammar._load_cached(path)  # written again, whole
    assert replaced is not None and replaced.parse(EXPRESSION) == parser.parse(EXPRESSION)


def test_the_key_changes_with_the_grammar(monkeypatch, tmp_path):
    monkeypatch.setenv("ADMISSION_PLAYGROUND_CACHE_DIR", str(tmp_path))
    text = grammar.grammar_text()
    assert grammar.parser_cache_path(text) != grammar.parser_cache_path(text + "\n// edited\n")


def test_an_unwritable_cache_directory_only_costs_the_build(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    parser = fresh_parser(monkeypatch, str(blocker / "cache"))  # a directory under a file: cannot be made
    assert parser.parse("1 + 2") is not None


def test_an_empty_setting_turns_the_cache_off(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert fresh_parser(monkeypatch, "").parse("a.b") is not None
    monkeypatch.setenv("ADMISSION_PLAYGROUND_CACHE_DIR", "")
    assert grammar.parser_cache_path(grammar.grammar_text()) is None
    assert os.listdir(tmp_path) == []
