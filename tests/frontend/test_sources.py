"""Front-end rules that hold without a browser: no HTML sinks in the scripts, no inline code in templates,
the build output ignored by git, and the pages referencing bundles the build produces."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Every script we write and serve: static/** except the build output (static/dist, generated from static/src).
SCRIPTS = sorted(p for p in (ROOT / "static").rglob("*.js") if "dist" not in p.relative_to(ROOT / "static").parts)
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
HTML_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment")


# The one HTML sink allowed: dom.js's setSanitisedHtml, for the server's sanitised Markdown (tasks, hints).
ALLOWED_SINKS = {("src/dom.js", "innerHTML"): 1}
# What may be handed to it: the fields the server fills from playground/workshops/services/markdown.py.
SANITISED_FIELDS = re.compile(r"setSanitisedHtml\([^,()]+(?:\([^()]*\))?, [\w.]+\.(taskHtml|html)\)")


def _sinks(source: str) -> dict[str, int]:
    return {sink: source.count(sink) for sink in HTML_SINKS if sink in source}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT / "static")))
def test_scripts_never_parse_html(script):
    name = str(script.relative_to(ROOT / "static"))
    source = script.read_text()
    allowed = {sink: count for (path, sink), count in ALLOWED_SINKS.items() if path == name}
    assert _sinks(source) == allowed
    assert "eval(" not in source and "new Function" not in source


def test_the_guard_covers_the_workshop_pages_and_nothing_is_left_outside_the_bundle():
    names = {str(p.relative_to(ROOT / "static")) for p in SCRIPTS}
    assert {"src/workshop-student.js", "src/workshop-teacher.js", "src/workshop-index.js"} <= names
    assert not list((ROOT / "static" / "workshops").glob("*.js"))


def test_the_one_html_sink_only_takes_the_servers_sanitised_markdown():
    dom = (ROOT / "static" / "src" / "dom.js").read_text()
    sink = re.search(r"export function setSanitisedHtml\((\w+), (\w+)\) \{\n  \1\.innerHTML = \2;", dom)
    assert sink, "the innerHTML of dom.js is setSanitisedHtml's, and nothing else's"
    calls = [(p, line) for p in SCRIPTS for line in p.read_text().splitlines() if "setSanitisedHtml(" in line]
    calls = [(p, line) for p, line in calls if "export function" not in line and "import" not in line]
    assert calls and all(SANITISED_FIELDS.search(line) for _, line in calls), calls


def test_the_guard_catches_what_it_is_for():
    for bad in (
        "node.innerHTML = name",
        "x.insertAdjacentHTML('beforeend', t)",
        "document.write(t)",
        "a.outerHTML = b",
    ):
        assert _sinks(bad)
    assert not SANITISED_FIELDS.search("setSanitisedHtml(node, message.text)")


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_templates_have_no_inline_script_style_or_handlers(template):
    html = template.read_text()
    for tag in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        assert "src=" in tag.group(1) and tag.group(2).strip() == "", f"inline script in {template.name}"
    assert "<style" not in html
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html), f"inline event handler in {template.name}"
    assert "|safe" not in html and "autoescape off" not in html


def test_every_bundle_a_template_loads_has_a_source_entry():
    entries = set(
        re.findall(r"entryPoints: \[([^\]]*)\]", (ROOT / "static" / "build.mjs").read_text())[0]
        .replace('"', "")
        .replace(" ", "")
        .split(",")
    )
    loaded = {m for t in TEMPLATES for m in re.findall(r"static 'dist/([\w-]+)\.js'", t.read_text())}
    assert loaded and loaded <= entries
    assert all((ROOT / "static" / "src" / f"{name}.js").exists() for name in entries)


def test_build_output_and_node_modules_are_ignored_by_git():
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "static/dist/editor-page.js", "node_modules/x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ignored.stdout.split() == ["static/dist/editor-page.js", "node_modules/x"]
