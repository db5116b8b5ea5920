"""Task and hint Markdown to safe HTML: markdown-it renders (raw HTML disabled), nh3 keeps an allow-list.

Both steps matter: markdown-it escapes typed HTML, and the sanitiser still strips anything a renderer bug or a
`javascript:` link could let through. Pages insert only this output as HTML; everything else is text.
"""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

_RENDERER = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "code": {"class"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}


@lru_cache(maxsize=512)
def render(markdown: str) -> str:
    html = _RENDERER.render(markdown or "")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
