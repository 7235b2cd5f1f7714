"""A page as a Jupyter notebook: prose as Markdown cells, each code block as a code cell.

The code cells are the page program's blocks (docverify.contract.page_program), so
joined with one blank line they are exactly the page program, the same code
the suite checks; each cell carries the `#>` lines it shows as its recorded
stdout. Site Markdown that Jupyter does not know is rewritten into plain
Markdown: admonitions (`!!! correction "..."`, `??? example "..."`) become
block quotes with a bold title, content tabs (`=== "..."`) a bold title,
embedded files their text, headings lose their `{ #anchor }`, and links
(also those wrapped over two lines) become absolute site URLs, to the pages
of the notebook's language. The first Markdown cell says, in the page's
language, what the code needs (docverify.contract.needs) and which page it is.

Used by docverify.site.downloads at build time (never committed) and by
tests/test_downloads.py.
"""

from __future__ import annotations

import copy
import functools
import itertools
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from docverify.contract import front_matter
from docverify.i18n import languages
from docverify.contract.boxes import ADMONITION
from docverify.contract.embeds import Embed, Fence, find_embeds, find_fences
from docverify.contract.needs import Needs, notebook_sentence, script_name
from docverify.contract.page_program import PageProgram, ProgramPart, guarded_block, read_part
from docverify.run.print_capture import OUTPUT_LINE
from docverify.i18n.site_text import text

NOTEBOOK_SUFFIX = ".ipynb"
_TAB = re.compile(r'^(?P<indent>[ \t]*)===\+?\s+"(?P<title>[^"]*)"\s*$')
_BARE_EMBED = re.compile(r'^(?P<indent>[ \t]*)-+8<-+\s+"(?P<target>[^"]+)"\s*$')
# A link's text may wrap onto the next line of its paragraph (not past a blank line).
_LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>(?:[^\]\n]|\n(?![ \t>]*\n))*)\]"
    r"\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)"
)
# `## Title { #anchor }` (attr_list): Jupyter would show the braces.
_HEADING_ANCHOR = re.compile(r"^(?P<heading>#{1,6}[ \t].*?)[ \t]*\{[ \t]*#[^}]*\}[ \t]*$")


@functools.cache
def _blank(kind: str) -> nbformat.NotebookNode:
    """An empty cell (or stdout output) of `kind`, as nbformat's v4 constructors make it."""
    if kind == "stdout":
        return new_output("stream", name="stdout", text="")
    return new_code_cell() if kind == "code" else new_markdown_cell()


def _new(kind: str, **fields: str) -> nbformat.NotebookNode:
    """A copy of `_blank(kind)` with `fields` set.

    Copied rather than constructed each time: each constructor checks its node
    against the schema on its own (about a millisecond a cell, seconds per build);
    notebook_text checks the whole notebook once.
    """
    node = copy.deepcopy(_blank(kind))
    node.update(fields)
    return node


def shown_outputs(code: str) -> str:
    """The text of the `#>` lines in `code`, as the prints wrote it."""
    found = [m["text"] or "" for line in code.splitlines() if (m := OUTPUT_LINE.match(line))]
    return "".join(f"{text}\n" for text in found)


def page_url(page: str, site_url: str, lang: str | None = None) -> str:
    """Site URL of docs/<section>/<page>.md in `lang` (by default the page's own language).

    As MkDocs builds it (use_directory_urls) with mkdocs-static-i18n: a translation
    `x.zh.md` is served at /zh/x/.
    """
    lang = lang or languages.language_of(page)
    path = languages.source_page(page.removeprefix("docs/")).removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    path = languages.url_prefix(lang) + path
    return site_url.rstrip("/") + "/" + path if site_url else path


def _absolute_links(markdown: str, page: str, site_url: str) -> str:
    """Relative links made absolute: a page in the language of `page`, a file at the site root."""

    def rewrite(match: re.Match) -> str:
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match[0]
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if resolved.endswith(".md"):
            url = page_url(resolved, site_url, languages.language_of(page))
        else:
            url = site_url.rstrip("/") + "/" + resolved.removeprefix("docs/")
        url += f"#{anchor}" if anchor else ""
        return f"{match['bang']}[{match['text']}]({url}{match['title'] or ''})"

    return _LINK.sub(rewrite, markdown)


@dataclass
class _Writer:
    """Collects cells; Markdown lines are written in the current box (block quote) depth."""

    program: PageProgram
    site_url: str
    lines: list[str]  # the page's Markdown
    cells: list = field(default_factory=list)
    markdown: list[tuple[str, bool]] = field(default_factory=list)  # (line, is it prose?)
    boxes: list[tuple[int, bool]] = field(default_factory=list)  # (body indent, quoted)
    blank_lines: int = 0

    @property
    def prefix(self) -> str:
        return "> " * sum(quoted for _, quoted in self.boxes)

    def enter(self, indent: int) -> None:
        """Leave the boxes that a line indented by `indent` is no longer inside."""
        while self.boxes and indent < self.boxes[-1][0]:
            self.boxes.pop()

    def blank(self) -> None:
        """Write the blank lines seen so far, in the current box."""
        self.markdown += [(self.prefix.rstrip(), True)] * self.blank_lines
        self.blank_lines = 0

    def text(self, line: str, *, raw: bool = False) -> None:
        """One line of the cell; `raw` (code, embedded files) is kept as it is."""
        indent = self.boxes[-1][0] if self.boxes else 0
        self.blank()
        body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
        if not raw:
            body = _HEADING_ANCHOR.sub(r"\g<heading>", body)
        self.markdown.append((self.prefix + body, not raw))

    def flush(self) -> None:
        # Links are rewritten over each run of prose lines at once: a link's text may wrap.
        runs = []
        for prose, run in itertools.groupby(self.markdown, key=lambda item: item[1]):
            block = "\n".join(line for line, _ in run)
            runs.append(
                _absolute_links(block, self.program.page, self.site_url) if prose else block
            )
        source = "\n".join(runs).strip("\n")
        if source.strip(" >\n"):
            self.cells.append(_new("markdown", source=source))
        self.markdown = []
        self.blank_lines = 0

    def code(self, part: ProgramPart) -> None:
        self.flush()
        # A CUDA-only block, where the rest runs on a CPU: as in the .py download.
        lang = languages.language_of(self.program.page)
        source = guarded_block(self.program, part, text(lang, "download.gpu_skipped"))
        cell = _new("code", source=source)
        if outputs := shown_outputs(part.block):
            cell.outputs.append(_new("stdout", text=outputs))
        self.cells.append(cell)

    def embedded(self, embed: Embed) -> list[str]:
        return read_part(embed, self.program.root).code.strip("\n").split("\n")

    def fence(self, fence: Fence, parts: Iterator[ProgramPart], close: str) -> None:
        """A code block: code cells for Python embeds, a Markdown code block for other files."""
        embeds, _ = find_embeds(self.program.page, "\n".join(fence.body))
        located = [Embed(e.page, fence.line + e.line, e.path, e.section) for e in embeds]
        python = [e for e in located if e.path.endswith(".py")]
        if python:
            self.blank_lines = 0
            for _ in python:
                self.code(next(parts))
            return
        opening = self.lines[fence.line - 1]
        indent = len(opening) - len(opening.lstrip())
        body = [text for e in located for text in self.embedded(e)]
        self.text(opening, raw=True)
        for line in body or [line[indent:] for line in fence.body]:
            self.markdown.append((self.prefix + line, False))
        self.text(close, raw=True)

    def prose(self, line: str, lineno: int) -> None:
        """One line outside code blocks: boxes, tabs and bare embeds become plain Markdown."""
        indent = len(line) - len(line.lstrip())
        if match := ADMONITION.match(line):
            self.blank()
            self.boxes.append((indent + 4, True))
            self.text(" " * (indent + 4) + f"**{match['title'] or match['kind'].capitalize()}**")
            self.blank_lines = 1
        elif match := _TAB.match(line):
            self.blank()
            self.text(line[:indent] + f"**{match['title']}**")
            self.boxes.append((indent + 4, False))
        elif match := _BARE_EMBED.match(line):
            path, _, section = match["target"].partition(":")
            for embedded in self.embedded(Embed(self.program.page, lineno, path, section or None)):
                self.text(" " * indent + embedded, raw=True)
        else:
            self.text(line)


def _intro(program: PageProgram, site_url: str) -> str:
    """The first cell: what the code needs (if anything), then which page this is."""
    lang = languages.language_of(program.page)
    needs = notebook_sentence(Needs.of_download(program.snippets), lang, script_name(program.page))
    intro = text(lang, "notebook.intro", url=page_url(program.page, site_url))
    return f"**{needs}**\n\n{intro}" if needs else intro


def page_notebook(
    program: PageProgram, markdown: str, *, site_url: str = ""
) -> nbformat.NotebookNode:
    """The page as a notebook whose code cells are `program`'s blocks, in order."""
    lines = markdown.splitlines()
    fences = {fence.line: fence for fence in find_fences(program.page, markdown)}
    parts = iter(program.parts)
    writer = _Writer(program, site_url, lines)
    writer.cells.append(_new("markdown", source=_intro(program, site_url)))
    lineno = front_matter.body_line(markdown)
    while lineno <= len(lines):
        line = lines[lineno - 1]
        if not line.strip():
            writer.blank_lines += 1
            lineno += 1
            continue
        writer.enter(len(line) - len(line.lstrip()))
        if lineno in fences:
            fence = fences[lineno]
            close = lineno + len(fence.body) + 1
            writer.fence(fence, parts, lines[close - 1] if close <= len(lines) else "```")
            lineno = close + 1
            continue
        writer.prose(line, lineno)
        lineno += 1
    writer.flush()
    for number, cell in enumerate(writer.cells):
        cell.id = f"cell-{number}"  # stable ids: the same page gives the same file
    notebook = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        }
    )
    notebook.cells = writer.cells  # checked with the whole notebook, by notebook_text
    return notebook


def notebook_text(notebook: nbformat.NotebookNode) -> str:
    """The .ipynb file's text; raises nbformat.ValidationError for an invalid notebook."""
    invalid: dict = {}  # nbformat.writes only logs what is invalid: raise it instead
    text = nbformat.writes(notebook, version=4, capture_validation_error=invalid)
    if invalid:
        raise invalid["ValidationError"]
    return text + "\n"
