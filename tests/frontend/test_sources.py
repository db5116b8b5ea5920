"""Front-end rules that hold without a browser: no HTML sinks in the scripts, no inline code in templates,
the build output ignored by git, and the pages referencing bundles the build produces."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "static" / "src").glob("*.js")) + sorted((ROOT / "static" / "playground").glob("*.js"))
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
HTML_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_never_parse_html(script):
    source = script.read_text()
    assert [sink for sink in HTML_SINKS if sink in source] == []
    assert "eval(" not in source and "new Function" not in source


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
