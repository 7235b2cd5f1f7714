"""A page's YAML front matter, read as MkDocs reads it (mkdocs.utils.meta.get_data)."""

from __future__ import annotations

from typing import Any

from mkdocs.utils.meta import get_data


def split(markdown: str) -> tuple[dict[str, Any], str]:
    """(front matter, the rest of the page), exactly as MkDocs separates them."""
    body, meta = get_data(markdown)
    return meta, body


def body_line(markdown: str) -> int:
    """The line (1-based) of `markdown` on which the page's body starts, after its front matter."""
    _, body = split(markdown)
    if not markdown.endswith(body):  # MkDocs normalised line endings: count on the same text
        markdown = markdown.replace("\r\n", "\n").replace("\r", "\n")
    return markdown[: len(markdown) - len(body)].count("\n") + 1
