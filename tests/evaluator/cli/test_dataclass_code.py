"""The CLI's cache of compiled dataclass methods: the classes it makes are the ones `exec` makes, what it
keeps is read back by the next process, a broken file costs only the compiling."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from evaluator.cli.dataclass_code import CompilingExec, read, write

ROOT = Path(__file__).resolve().parents[3]
METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


def make_class():
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: "tuple[int, ...]" = dataclasses.field(default_factory=tuple)
        label: str = "p"

    return Point


def code_of(cls) -> dict:
    return {
        name: (code.co_code, code.co_consts, code.co_names, code.co_varnames, code.co_flags, code.co_filename)
        for name in METHODS
        for code in [getattr(cls, name).__code__]
    }


def test_classes_made_through_the_cache_are_those_exec_makes(monkeypatch):
    plain = make_class()
    compiling = CompilingExec({})
    monkeypatch.setattr(dataclasses, "exec", compiling, raising=False)
    first, again = make_class(), make_class()
    assert compiling.learnt and compiling.codes
    assert code_of(first) == code_of(plain) == code_of(again)
    assert first.__init__.__annotations__ == plain.__init__.__annotations__
    point = again(1)
    assert (point, repr(point), hash(point) == hash(again(1))) == (
        again(1, (), "p"),
        "make_class.<locals>.Point(x=1, y=(), label='p')",
        True,
    )
    try:
        point.x = 2
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a frozen dataclass made through the cache accepted an assignment")


def test_what_a_run_compiled_is_read_back(monkeypatch, tmp_path):
    plain = make_class()
    path = tmp_path / "cache" / "codes.marshal"
    compiling = CompilingExec(read(path))
    monkeypatch.setattr(dataclasses, "exec", compiling, raising=False)
    make_class()
    write(compiling, path)
    again = CompilingExec(read(path))
    assert set(again.codes) == set(compiling.codes)
    monkeypatch.setattr(dataclasses, "exec", again, raising=False)
    assert code_of(make_class()) == code_of(plain)
    assert not again.learnt  # every method came from the file


def test_a_broken_or_foreign_file_is_ignored(tmp_path):
    broken = tmp_path / "broken.marshal"
    broken.write_bytes(b"\x00not marshal")
    foreign = tmp_path / "foreign.marshal"
    foreign.write_bytes(__import__("marshal").dumps(["a", "list"]))
    assert read(broken) == {} and read(foreign) == {} and read(tmp_path / "missing") == {}


def test_the_command_fills_the_cache_and_answers_the_same_from_it(tmp_path):
    from tests.evaluator.cli.cli_fixtures import POLICY

    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "r.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 9}\n"
    )
    env = {**os.environ, "ADMISSION_PLAYGROUND_CACHE_DIR": str(tmp_path / "cache")}
    command = [
        sys.executable,
        "-m",
        "evaluator",
        "simulate",
        "-f",
        str(tmp_path / "p.yaml"),
        "-f",
        str(tmp_path / "r.yaml"),
    ]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    [cached] = (tmp_path / "cache").glob("dataclass-code-*.marshal")
    assert len(read(cached)) > 100  # the methods of every dataclass the command defined
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert (first.returncode, first.stdout, first.stderr) == (second.returncode, second.stdout, second.stderr)
    assert first.returncode == 1 and "denied request" in first.stdout
