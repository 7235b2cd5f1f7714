"""No line break that shows as a stray space in Chinese text, in a page's source or its HTML.

A browser renders a line break inside a paragraph as a space (Chromium and
WebKit do so even between two Chinese characters), so a Chinese sentence
wrapped in the source reads 「读自固定 版本的源码」 on the site. The source check
finds a prose line whose break to the next line of the same paragraph falls
between two CJK characters or next to full-width punctuation; the HTML check
finds the same in the text a built page shows (outside `<pre>`, scripts and
styles), where a hook or a macro could put one back.

`python -m docverify.i18n.cjk_breaks` lists every such break in the `*.zh.md` pages
as file:line; `--fix` joins the lines.
"""

from __future__ import annotations

import bisect
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from docverify.contract.embeds import find_fences
from docverify.paths import DOCS_DIR, REPO_ROOT

# Han ideographs, CJK punctuation (。，「」（）：…) and Chinese curly quotes.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PUNCT = "\u3000-\u303f\uff00-\uffef\u201c\u201d"
CJK = _HAN + _PUNCT
_CJK_CHAR = re.compile(f"[{CJK}]")
_PUNCT_CHAR = re.compile(f"[{_PUNCT}]")
# A line break inside text: the visible characters either side of it.
_LINE_BREAK = re.compile(r"(\S)[ \t]*\n[ \t\n]*(?=(\S))")
# Markdown that does not show, at the edges of a line: emphasis, a link's brackets and target.
_TRAILING_MARKUP = re.compile(r"(?:\]\([^()\s]*\)|[*_\]])+$")
_LEADING_MARKUP = re.compile(r"^[*_\[]+")


def stray_space(before: str, after: str) -> bool:
    """Whether a line break between characters `before` and `after` shows as a stray space.

    It does between two CJK characters, and next to full-width punctuation, which carries
    its own spacing (「结果。 `x`」). Between a Chinese character and Latin text or code
    the space is the usual one and stays.
    """
    both = _CJK_CHAR.match(before) and _CJK_CHAR.match(after)
    return bool(both or _PUNCT_CHAR.match(before) or _PUNCT_CHAR.match(after))


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
# A line that starts a block of its own, so a break before it is not inside a paragraph.
_BLOCK_START = re.compile(
    r"^\s*(?:[-*+][ \t]|\d+[.)][ \t]|#|\||!!!|\?\?\?|>|```|~~~|--8<--|\[\^|\*\*\*$|---$|$)"
    r"|^\s*<(?!https?://|mailto:)"  # raw HTML or a marker (an <https://...> link is prose)
)


def _continuations(markdown: str) -> list[int]:
    """0-based indexes of lines that continue the paragraph of the line before them."""
    lines = markdown.splitlines()
    skip = set()
    if front := _FRONT_MATTER.match(markdown):
        skip |= set(range(front[0].count("\n")))
    for fence in find_fences("", markdown):
        skip |= set(range(fence.line - 1, fence.line + len(fence.body) + 1))
    return [
        i
        for i in range(1, len(lines))
        if i not in skip
        and i - 1 not in skip
        and not _BLOCK_START.match(lines[i])
        and not re.match(r"\s*(?:#|\||!!!|\?\?\?|<(?!https?://|mailto:))", lines[i - 1])
        and lines[i - 1].strip()
        and not lines[i - 1].endswith(("  ", "\\"))  # a hard line break: <br>, no space
    ]


def _edges(before: str, after: str) -> tuple[str, str]:
    """The last visible character of a line and the first of the next."""
    shown_before = _TRAILING_MARKUP.sub("", before.rstrip())
    shown_after = _LEADING_MARKUP.sub("", after.lstrip())
    return shown_before[-1:], shown_after[:1]


def _stray_breaks(markdown: str) -> list[tuple[int, str, str]]:
    lines = markdown.splitlines()
    found = []
    for i in _continuations(markdown):
        before, after = _edges(lines[i - 1], lines[i])
        if before and after and stray_space(before, after):
            found.append((i, before, after))
    return found


def source_breaks(page: str, markdown: str) -> list[str]:
    """Every prose line of `page` whose line break shows as a stray space, as page:line."""
    return [
        f"{page}:{i}: line break between {before!r} and {after!r} shows as a space: "
        f"join line {i + 1} onto it"
        for i, before, after in _stray_breaks(markdown)
    ]


def join_breaks(markdown: str) -> str:
    """`markdown` with each line break that shows as a stray space joined."""
    lines = markdown.splitlines(keepends=True)
    for i, _, _ in reversed(_stray_breaks(markdown)):
        lines[i - 1 : i + 1] = [lines[i - 1].rstrip() + lines[i].lstrip()]
    return "".join(lines)


# Elements whose text is not prose (kept as written) or is not shown.
_RAW = {"pre", "script", "style", "textarea", "template", "svg"}
# Elements that end a run of text: a break next to them is not inside a line of text.
_BLOCKS = {
    "address", "article", "aside", "blockquote", "br", "button", "dd", "details", "dialog",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hr", "img", "input", "label", "li", "main", "nav", "ol", "p",
    "section", "select", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip


class _Text(HTMLParser):
    """Collects each run of shown text with the HTML line each piece came from."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.raw = 0
        self.code = 0
        self.runs: list[tuple[str, list[int], list[int]]] = []  # text, piece offsets, lines
        self._run: list[str] = []
        self._offsets: list[int] = []
        self._lines: list[int] = []

    def _end_run(self) -> None:
        if self._run:
            self.runs.append(("".join(self._run), self._offsets, self._lines))
        self._run, self._offsets, self._lines = [], [], []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _RAW:
            self.raw += 1
        self.code += tag == "code"
        if tag in _BLOCKS or tag in _RAW:
            self._end_run()

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in _BLOCKS:
            self._end_run()

    def handle_endtag(self, tag: str) -> None:
        if tag in _RAW:
            self.raw = max(0, self.raw - 1)
        if tag == "code":
            self.code = max(0, self.code - 1)
        if tag in _BLOCKS or tag in _RAW:
            self._end_run()

    def handle_data(self, data: str) -> None:
        if self.raw:
            return
        self._offsets.append(sum(len(t) for t in self._run))
        self._lines.append(self.getpos()[0])
        # Inline code counts as Latin text, whatever it holds: a space next to it is the
        # usual one (as in the source check, where the backtick is the edge).
        self._run.append(re.sub(r"\S", "x", data) if self.code else data)

    def close(self) -> None:
        super().close()
        self._end_run()


def html_breaks(name: str, html: str) -> list[str]:
    """Every line break that shows as a stray space in the text of `html`, as name:line."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    problems = []
    for text, offsets, lines in parser.runs:
        for match in _LINE_BREAK.finditer(text):
            if not stray_space(match[1], match[2]):
                continue
            piece = bisect.bisect_right(offsets, match.start(1)) - 1
            line = lines[piece] + text.count("\n", offsets[piece], match.start(1))
            context = text[max(0, match.start() - 20) : match.end() + 20]
            problems.append(
                f"{name}:{line}: line break between {match[1]!r} and {match[2]!r} "
                f"shows as a space in {context!r}"
            )
    return problems


def chinese_pages(docs_dir: Path = DOCS_DIR) -> list[Path]:
    return sorted(docs_dir.rglob("*.zh.md"))


def main(argv: list[str]) -> int:
    problems = []
    for path in chinese_pages():
        page = path.relative_to(REPO_ROOT).as_posix()
        markdown = path.read_text(encoding="utf-8")
        if "--fix" in argv and (joined := join_breaks(markdown)) != markdown:
            path.write_text(joined, encoding="utf-8")
            markdown = joined
        problems += source_breaks(page, markdown)
    print("\n".join(problems) or "no stray line break in the Chinese pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
