"""No stray space or doubled punctuation in Chinese text, in a page's source or its HTML.

A browser renders a line break inside a paragraph as a space (Chromium and
WebKit do so even between two Chinese characters), so a Chinese sentence
wrapped in the source reads 「读自固定 版本的源码」 on the site. The source check
finds a prose line whose break to the next line of the same paragraph falls
between two CJK characters or next to full-width punctuation; the HTML check
finds the same in the text a built page shows (outside `<pre>`, scripts and
styles), where a hook or a macro could put one back.

The typography check finds, in the prose of each line (code, quotes of the
notes and of English sources, link targets and markup set aside), what a
careful Chinese typesetter would not print: a space after or before full-width
punctuation (`**原因：** 它`, `的 “padded”`, `。 {✓ x}`), a half-width colon
after Chinese text (`原因:`), and doubled sentence-final punctuation (`。。`, a
code span ending in a full stop followed by `。`, `。」。`).

`python -m docverify.i18n.cjk_breaks` lists every such fault in the `*.zh.md`
pages as file:line; `--fix` joins the lines and removes the stray spaces and
marks.
"""

from __future__ import annotations

import bisect
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from docverify.contract import boxes
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


# --- typography: stray spaces, half-width colons and doubled punctuation ----------------------

# Sentence-final full-width punctuation, and what may close a quote after it.
_FINAL = "。！？"
_CLOSERS = "」”』"
_STRAY_SPACES = [
    (re.compile(f"[{_PUNCT}]([ \t]+)(?=\\S)"), "space after full-width punctuation"),
    (re.compile(f"(?<=\\S)([ \t]+)[{_PUNCT}]"), "space before full-width punctuation"),
]
_HALF_COLON = re.compile(f"[{_HAN}{_CLOSERS}）](:)")
_COLON = "half-width colon after Chinese text: write `：`"
_TWICE = "doubled sentence-final punctuation"
_DOUBLED = re.compile(f"(?:[{_FINAL}]|(?<!\\.)[.!?])[{_CLOSERS}]?([{_FINAL}])")
# What a line of prose shows, token by token (docverify.contract.boxes.parse_quotes reads
# a 原文 label and its quotes). Each token is either shown as it is, set aside as a
# placeholder (code, a URL, text in "…": not Chinese prose), or not shown at all.
_TOKENS = re.compile(
    r"(?P<code>(?P<ticks>`+)(?P<body>.+?)(?<!`)(?P=ticks)(?!`))"
    r"|(?P<marker>\{✓[^}]*\})"
    r"|(?P<none>\{-\})"
    r"|(?P<attrs>[ \t]*\{[ \t]*[#.:][^}]*\}[ \t]*$)"
    r"|(?P<link_open>!?\[(?=[^\]]*\]\([^)\s]*\)))"
    r"|(?P<target>\]\([^)\s]*\))"
    r"|(?P<url><https?://[^>\s]*>|https?://[^\s)）]+)"
    r"|(?P<tag></?[A-Za-z][^>]*>)"
    r"|(?P<emphasis>\*+)"
    r"|(?P<notes>「(?P<said>[^」]*)」)"
    r'|(?P<english>"[^"\n]*")'
    r"|\\(?P<escaped>[\\`*_{}\[\]()#+\-.!|<>])"
)
# A line's own markup before its text: indentation, a list item, a heading, a quote.
_LINE_START = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+|\d+[.)][ \t]+|#{1,6}[ \t]+|\[\^[^\]]*\]:[ \t]*)?"
)
_ADMONITION_TITLE = re.compile(r'^[ \t]*(?:!!!|\?\?\?\+?)[ \t]+[-\w]+[ \t]+"(?P<title>[^"]*)"')
_QUOTE_LABEL = re.compile(r"^[ \t]*原文[:：]")
_FRONT_FIELDS = re.compile(r"^(?:title|summary):[ \t]*(?P<q>[\"']?)(?P<text>.*?)(?P=q)[ \t]*$")


def _final_of(text: str) -> str:
    """The sentence-final mark a quoted text ends with, as the reader sees it end."""
    if text.endswith(".") and not text.endswith(".."):
        return "."
    return text[-1] if text and text[-1] in _FINAL + "!?" else ""


def _shown(text: str, offset: int) -> list[tuple[str, int]]:
    """The characters of `text` a reader sees, with their column in the line (-1 where a
    placeholder stands for code, a URL or an English quote, which are not checked)."""
    shown: list[tuple[str, int]] = []
    at = 0
    while at < len(text):
        token = _TOKENS.match(text, at)
        if not token:
            shown.append((text[at], offset + at))
            at += 1
            continue
        if token["code"] is not None:
            shown += [("X", -1)] + [(c, -1) for c in _final_of(token["body"])]
        elif token["marker"] is not None:
            shown.append(("✓", -1))
        elif token["url"] is not None:
            shown.append(("U", -1))
        elif token["notes"] is not None:
            shown += [("「", offset + at), ("Q", -1)]
            shown += [(c, -1) for c in _final_of(token["said"])]
            shown.append(("」", offset + token.end() - 1))
        elif token["english"] is not None:
            shown += [('"', offset + at), ("Y", -1), ('"', offset + token.end() - 1)]
        elif token["escaped"] is not None:
            shown.append((token["escaped"], offset + at + 1))
        # {-}, heading attributes, link brackets and targets, tags and emphasis show nothing
        at = token.end()
    return shown


def _table_cells(i: int, line: str) -> list[tuple[int, int, str]]:
    """(line, column, text) of each cell of a table row, its pipes and padding left out."""
    cells, column = [], 0
    for cell in re.split(r"(?<!\\)\|", line):
        stripped = cell.strip()
        if stripped and not set(stripped) <= set("-: "):
            cells.append((i, column + cell.index(stripped), stripped))
        column += len(cell) + 1
    return cells


def _after_quotes(line: str, label: bool) -> int:
    """Where the prose of a 原文 line begins: after `原文:` and its quotes (or, on a line
    that goes on with more quotes, ` / 「…」`, after those), at the last quote's 」."""
    indent = len(line) - len(line.lstrip())
    text = line[indent:] if label else "原文:" + line[indent:]
    parsed = boxes.parse_quotes(text)
    start = indent + max(0, (parsed[1] if parsed else 0) - (0 if label else len("原文:")))
    return start - 1 if line[start - 1 : start] == "」" else start


def _prose_spans(markdown: str) -> list[tuple[int, int, str]]:
    """(0-based line, column, text) of each piece of prose of the page's lines: a table
    row's cells one by one, an admonition's title, a 原文 line after its quotes; front
    matter only in its `title:` and `summary:`, code blocks and raw HTML not at all."""
    front = _FRONT_MATTER.match(markdown)
    front_lines = front[0].count("\n") if front else 0
    skip = set(range(front_lines))
    for fence in find_fences("", markdown):
        skip |= set(range(fence.line - 1, fence.line + len(fence.body) + 1))
    spans = []
    quoting = False  # in a 原文 paragraph, whose quotes may go on after a line break
    for i, line in enumerate(markdown.splitlines()):
        field = _FRONT_FIELDS.match(line) if i < front_lines else None
        title = _ADMONITION_TITLE.match(line)
        label = _QUOTE_LABEL.match(line)
        continued = quoting and line.lstrip().startswith("/")
        quoting = False
        if field:
            spans.append((i, field.start("text"), field["text"]))
        elif i in skip or not line.strip() or re.match(r"^[ \t]*(?:<|--8<--)", line):
            continue
        elif title:
            spans.append((i, title.start("title"), title["title"]))
        elif line.lstrip().startswith("|"):
            spans += _table_cells(i, line)
        elif label or continued:
            start = _after_quotes(line, bool(label))
            quoting = not line[start:].strip("」 ")  # nothing but quotes: more may follow
            spans.append((i, start, line[start:]))
        else:
            start = _LINE_START.match(line).end()
            spans.append((i, start, line[start:]))
    return spans


def _faults(markdown: str) -> list[tuple[int, str, list[int], str]]:
    """(0-based line, what, raw columns to delete or replace, context) of each fault."""
    faults = []
    for i, column, text in _prose_spans(markdown):
        shown = _shown(text, column)
        chars = "".join(c for c, _ in shown)
        where = [at for _, at in shown]
        found = [
            (what, [k for k in range(*match.span(1))], match)
            for pattern, what in _STRAY_SPACES
            for match in pattern.finditer(chars)
        ]
        found += [(_COLON, [m.start(1)], m) for m in _HALF_COLON.finditer(chars)]
        found += [(_TWICE, [m.start(1)], m) for m in _DOUBLED.finditer(chars)]
        for what, shown_at, match in found:
            columns = [where[k] for k in shown_at]
            context = chars[max(0, match.start() - 12) : match.end() + 12]
            if all(c >= 0 for c in columns):
                faults.append((i, what, columns, context))
    return faults


def source_typography(page: str, markdown: str) -> list[str]:
    """Every stray space, half-width colon and doubled full stop in the prose of `page`,
    as page:line."""
    return [
        f"{page}:{i + 1}: {what} in {context!r}"
        for i, what, _, context in sorted(_faults(markdown), key=lambda f: f[0])
    ]


def fix_typography(markdown: str) -> str:
    """`markdown` with the stray spaces and doubled marks removed, and a half-width colon
    after Chinese text made full-width."""
    for _ in range(3):  # a colon made full-width may leave a space after it to remove
        fixed = _fix_once(markdown)
        if fixed == markdown:
            break
        markdown = fixed
    return markdown


def _fix_once(markdown: str) -> str:
    lines = markdown.splitlines(keepends=True)
    edits: dict[int, dict[int, str]] = {}
    for i, what, columns, _ in _faults(markdown):
        for column in columns:
            edits.setdefault(i, {})[column] = "：" if what == _COLON else ""
    for i, changes in edits.items():
        line = lines[i]
        for column in sorted(changes, reverse=True):
            line = line[:column] + changes[column] + line[column + 1 :]
        lines[i] = line
    return "".join(lines)


def html_typography(name: str, html: str) -> list[str]:
    """Every space next to full-width punctuation in the text of `html`, as name:line."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    problems = []
    for shown, offsets, lines in parser.runs:
        if shown.lstrip().startswith("原文:"):
            continue  # a box's quotes, spaced as on the English page (the source check reads them)
        # The notes' own words, quoted in 「」, are as the notes wrote them.
        text = re.sub(r"「[^」]*」", lambda m: "「" + re.sub(r"\S", "Q", m[0][1:-1]) + "」", shown)
        flat = re.sub(r"\s+", lambda m: " " if "\n" not in m[0] else m[0], text)
        for pattern, what in _STRAY_SPACES:
            for match in pattern.finditer(text):
                if "\n" in match[1]:
                    continue  # a line break: html_breaks reports it
                piece = bisect.bisect_right(offsets, match.start(1)) - 1
                line = lines[piece] + text.count("\n", offsets[piece], match.start(1))
                context = flat[max(0, match.start() - 20) : match.end() + 20]
                problems.append(f"{name}:{line}: {what} in {context!r}")
    return problems


# Elements whose text is not prose (kept as written) or is not shown (<title>: the tab's).
_RAW = {"pre", "script", "style", "textarea", "template", "svg", "title"}
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
        if "--fix" in argv and (fixed := fix_typography(join_breaks(markdown))) != markdown:
            path.write_text(fixed, encoding="utf-8")
            markdown = fixed
        problems += source_breaks(page, markdown) + source_typography(page, markdown)
    print("\n".join(problems) or "no stray line break or space in the Chinese pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
