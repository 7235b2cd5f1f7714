"""A page as a Jupyter notebook: prose as Markdown cells, each code block as a code cell.

The code cells are the page program's blocks (docverify.page_program), so
joined with one blank line they are exactly the page program, the same code
the suite checks; each cell carries the `#>` lines it shows as its recorded
stdout. Site Markdown that Jupyter does not know is rewritten into plain
Markdown: admonitions (`!!! correction "..."`, `??? example "..."`) become
block quotes with a bold title, content tabs (`=== "..."`) a bold title,
embedded files their text, and links to other pages absolute site URLs.

Used by hooks/downloads.py at build time (never committed) and by
tests/test_downloads.py.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import nbformat

from docverify.embeds import Embed, Fence, find_embeds, find_fences
from docverify.page_program import PageProgram, ProgramPart, read_part

NOTEBOOK_SUFFIX = ".ipynb"
_ADMONITION = re.compile(
    r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)(?:\s+"(?P<title>[^"]*)")?\s*$'
)
_TAB = re.compile(r'^(?P<indent>[ \t]*)===\+?\s+"(?P<title>[^"]*)"\s*$')
_BARE_EMBED = re.compile(r'^(?P<indent>[ \t]*)-+8<-+\s+"(?P<target>[^"]+)"\s*$')
_LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)"
)
_OUTPUT = re.compile(r"^\s*#>(?: (?P<text>.*))?$")


def shown_outputs(code: str) -> str:
    """The text of the `#>` lines in `code`, as the prints wrote it."""
    found = [m["text"] or "" for line in code.splitlines() if (m := _OUTPUT.match(line))]
    return "".join(f"{text}\n" for text in found)


def page_url(page: str, site_url: str) -> str:
    """Site URL of docs/<section>/<page>.md (use_directory_urls, as MkDocs builds it)."""
    path = page.removeprefix("docs/").removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    return site_url.rstrip("/") + "/" + path if site_url else path


def _absolute_links(line: str, page: str, site_url: str) -> str:
    def rewrite(match: re.Match) -> str:
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match[0]
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if resolved.endswith(".md"):
            url = page_url(resolved, site_url)
        else:
            url = site_url.rstrip("/") + "/" + resolved.removeprefix("docs/")
        url += f"#{anchor}" if anchor else ""
        return f"{match['bang']}[{match['text']}]({url}{match['title'] or ''})"

    return _LINK.sub(rewrite, line)


def _cell(kind: str, source: str, **fields) -> dict:
    return {"cell_type": kind, "id": "", "metadata": {}, "source": source, **fields}


@dataclass
class _Writer:
    """Collects cells; Markdown lines are written in the current box (block quote) depth."""

    program: PageProgram
    site_url: str
    lines: list[str]  # the page's Markdown
    cells: list = field(default_factory=list)
    markdown: list[str] = field(default_factory=list)
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
        self.markdown += [self.prefix.rstrip()] * self.blank_lines
        self.blank_lines = 0

    def text(self, line: str, *, raw: bool = False) -> None:
        indent = self.boxes[-1][0] if self.boxes else 0
        self.blank()
        body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
        if not raw:
            body = _absolute_links(body, self.program.page, self.site_url)
        self.markdown.append(self.prefix + body)

    def flush(self) -> None:
        source = "\n".join(self.markdown).strip("\n")
        if source.strip(" >\n"):
            self.cells.append(_cell("markdown", source))
        self.markdown = []
        self.blank_lines = 0

    def code(self, part: ProgramPart) -> None:
        self.flush()
        outputs = shown_outputs(part.block)
        stream = [{"output_type": "stream", "name": "stdout", "text": outputs}] if outputs else []
        self.cells.append(_cell("code", part.block, outputs=stream, execution_count=None))

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
        for text in body or [line[indent:] for line in fence.body]:
            self.markdown.append(self.prefix + text)
        self.text(close, raw=True)

    def prose(self, line: str, lineno: int) -> None:
        """One line outside code blocks: boxes, tabs and bare embeds become plain Markdown."""
        indent = len(line) - len(line.lstrip())
        if match := _ADMONITION.match(line):
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
            for text in self.embedded(Embed(self.program.page, lineno, path, section or None)):
                self.text(" " * indent + text, raw=True)
        else:
            self.text(line)


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                return index + 1
    return 0


def _intro(program: PageProgram, site_url: str) -> str:
    intro = (
        f"*This notebook is the page <{page_url(program.page, site_url)}> of PyTorch Notes. "
        "Its code cells are the page's code, the program the site's test suite runs and "
        "checks; the outputs shown are the `#>` lines the page shows.*"
    )
    if program.launch:
        intro += (
            "\n\n**Run it as a script, not here:** the code starts several processes. "
            f"Download `{program.stem}.py` and run `{program.run_command()}`."
        )
    return intro


def page_notebook(
    program: PageProgram, markdown: str, *, site_url: str = ""
) -> nbformat.NotebookNode:
    """The page as a notebook whose code cells are `program`'s blocks, in order."""
    lines = markdown.splitlines()
    fences = {fence.line: fence for fence in find_fences(program.page, markdown)}
    parts = iter(program.parts)
    writer = _Writer(program, site_url, lines)
    writer.cells.append(_cell("markdown", _intro(program, site_url)))
    lineno = _front_matter_end(lines) + 1
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
        cell["id"] = f"cell-{number}"  # stable ids: the same page gives the same file
    # Not validated cell by cell as it is made (seconds per build): notebook_text validates it.
    return nbformat.from_dict(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"},
            },
            "cells": writer.cells,
        }
    )


def notebook_text(notebook: nbformat.NotebookNode) -> str:
    """The .ipynb file's text; raises nbformat.ValidationError for an invalid notebook."""
    return nbformat.writes(notebook, version=4) + "\n"


def code_cells(notebook: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]
