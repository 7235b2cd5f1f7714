"""The HTML that the plugin's phases write into a page, kept out of Markdown's way.

The phases add HTML to a page's Markdown: a ✓ link per proof, a badge and a
version line under every code block. That more than doubles the text Markdown
converts (1.3 MB of pages become 3.2 MB), and Markdown gains nothing from
reading it: it passes the HTML through as it is. So, once the phases are done,
each such element is swapped for a short placeholder, and put back into the
page's HTML as soon as Markdown has rendered it. The built page is the same.

Only elements that are whole on one line and carry one of the plugin's classes
are kept aside; anything with Markdown inside (the download and run lines, a
version note's fold) is left to Markdown.
"""

from __future__ import annotations

import re

# Private-use characters: no page writes them, and Markdown keeps them as text.
_OPEN, _CLOSE = "\ue000", "\ue001"
_INLINE = re.compile(r'<(a|span) class="proof-link[^"]*"[^>]*>[^<]*</\1>')
_BLOCK = re.compile(
    r'^([ \t]*)(<(p|span) class="(?:snippet-badge|version-range|version-holds)[ "][^\n]*</\3>)[ \t]*$',
    re.MULTILINE,
)
_IN_TAG = re.compile(f"<[^<>]*{_OPEN}")
_PLACED = re.compile(f"<p>{_OPEN}(\\d+){_CLOSE}</p>|{_OPEN}(\\d+){_CLOSE}")


def stash(markdown: str) -> tuple[str, list[str]]:
    """The Markdown with the plugin's HTML replaced by placeholders, and that HTML in order."""
    kept: list[str] = []

    def keep(element: str) -> str:
        kept.append(element)
        return f"{_OPEN}{len(kept) - 1}{_CLOSE}"

    blocks_kept = _BLOCK.sub(lambda match: match[1] + keep(match[2]), markdown)

    def inline(match: re.Match[str]) -> str:
        line_start = blocks_kept.rfind("\n", 0, match.start()) + 1
        if blocks_kept.count("`", line_start, match.start()) % 2:
            return match[0]  # inside a code span: the page shows this HTML as text
        return keep(match[0])

    return _INLINE.sub(inline, blocks_kept), kept


def restore(html: str, kept: list[str]) -> str:
    """The rendered page with each placeholder replaced by the HTML it stands for. A block
    that Markdown wrapped in a paragraph of its own takes the paragraph's place when it is
    a paragraph itself, as Markdown would have passed it through."""
    if _IN_TAG.search(html):  # an image's alt text, say: HTML cannot go there
        raise ValueError("a proof link or badge stands where HTML cannot (inside a tag)")

    def put(match: re.Match[str]) -> str:
        if match[1] is None:
            return kept[int(match[2])]
        element = kept[int(match[1])]
        # Markdown ends a block of raw HTML with a blank line, a paragraph without.
        return f"{element}\n" if element.startswith("<p ") else f"<p>{element}</p>"

    return _PLACED.sub(put, html)


def left_in(output: str) -> bool:
    """Whether the built page still holds a placeholder: one that a heading's title carried
    into the table of contents, which the theme writes outside the page's content."""
    return _OPEN in output
