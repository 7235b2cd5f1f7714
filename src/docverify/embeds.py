"""The docs contract: how pages embed snippets, in one place.

Used by the MkDocs hook (hooks/snippet_embeds.py), which fails the build
naming page:line, and by tests/test_docs_contract.py, which also checks the
reverse direction (every snippet file and section is embedded somewhere).

A page embeds code only with pymdownx.snippets lines inside a fence:

    --8<-- "snippets/<section>/<page>.py:<name>"   one named section
    --8<-- "snippets/<section>/<page>.py"          the whole file

and a snippet file marks sections with `# --8<-- [start:name]` / `[end:name]`.

Every embedded path must belong to a root declared in docverify.embed_roots
(with its kind of check), and a code block embeds exactly one file, so that
each block gets exactly one badge saying how it is checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SECTION_MARKER = re.compile(
    r"--8<--\s+\[\s*(?P<kind>start|end)\s*:\s*(?P<name>[a-z][-_0-9a-z]*)\s*\]"
)
_EMBED_LINE = re.compile(r'^\s*-+8<-+\s+"(?P<target>[^"]*)"\s*$')
_ANY_SNIPPET_SYNTAX = re.compile(r"^\s*;?-+8<-+")
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_TARGET = re.compile(r"^(?P<path>[^:]+?)(?::(?P<section>[a-z][-_0-9a-z]*))?$")


class SnippetFormatError(ValueError):
    """A snippet file breaks the section rules; the message names file:line."""


@dataclass(frozen=True)
class Section:
    name: str
    start_line: int  # line of the start marker (1-based)
    end_line: int


@dataclass(frozen=True)
class Embed:
    page: str  # docs-relative or repo-relative path of the Markdown file
    line: int
    path: str  # repo-relative path of the embedded file
    section: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Fence:
    page: str
    line: int
    info: str
    body: tuple[str, ...]


def read_sections(path: Path | str, source: str) -> list[Section]:
    """Named sections in file order; unbalanced or duplicate markers are errors."""
    open_sections: dict[str, int] = {}
    sections: list[Section] = []
    for lineno, line in enumerate(source.splitlines(), start=1):
        match = SECTION_MARKER.search(line)
        if not match:
            continue
        name = match["name"]
        if match["kind"] == "start":
            if name in open_sections or any(s.name == name for s in sections):
                raise SnippetFormatError(f"{path}:{lineno}: section `{name}` starts twice")
            open_sections[name] = lineno
        elif name not in open_sections:
            raise SnippetFormatError(f"{path}:{lineno}: section `{name}` ends but never started")
        else:
            sections.append(Section(name, open_sections.pop(name), lineno))
    for name, lineno in open_sections.items():
        raise SnippetFormatError(f"{path}:{lineno}: section `{name}` is never ended")
    return sections


def find_fences(page: str, markdown: str) -> list[Fence]:
    """Fenced code blocks (``` or ~~~, any indent), with their 1-based opening line."""
    fences: list[Fence] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence, indent = match["fence"], match["indent"]
        close = re.compile(rf"^{re.escape(indent)}{fence[0]}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        fences.append(Fence(page, i + 1, match["info"].strip(), tuple(lines[i + 1 : j])))
        i = j + 1
    return fences


def find_embeds(page: str, markdown: str) -> tuple[list[Embed], list[str]]:
    """Every snippet embed on a page, and problems with embed syntax (page:line: ...)."""
    embeds: list[Embed] = []
    problems: list[str] = []
    for lineno, line in enumerate(markdown.splitlines(), start=1):
        if not _ANY_SNIPPET_SYNTAX.match(line):
            continue
        match = _EMBED_LINE.match(line)
        target = _TARGET.match(match["target"]) if match else None
        if not target:
            problems.append(
                f'{page}:{lineno}: use --8<-- "path" or --8<-- "path:section" '
                f"(no block form, line ranges or commented-out embeds): {line.strip()}"
            )
            continue
        embeds.append(Embed(page, lineno, target["path"], target["section"]))
    return embeds, problems


def fence_problems(page: str, markdown: str) -> list[str]:
    """Code blocks must only embed files: no hand-written code or output in Markdown."""
    problems = []
    for fence in find_fences(page, markdown):
        written = [line for line in fence.body if line.strip() and not _EMBED_LINE.match(line)]
        if written:
            problems.append(
                f"{page}:{fence.line}: code block `{fence.info or 'no language'}` contains "
                f"hand-written lines; embed them from snippets/ instead: {written[0].strip()!r}"
            )
    return problems


def embed_problem(embed: Embed, root: Path) -> str | None:
    """Why an embed cannot be resolved, naming page:line, or None."""
    target = root / embed.path
    if not target.is_file():
        return f"{embed.where}: embedded file {embed.path} does not exist"
    if embed.section is None:
        return None
    try:
        sections = read_sections(embed.path, target.read_text(encoding="utf-8"))
    except SnippetFormatError as exc:
        return f"{embed.where}: {exc}"
    if embed.section not in {s.name for s in sections}:
        return f"{embed.where}: {embed.path} has no section `{embed.section}`"
    return None


def page_blocks(page: str, markdown: str) -> list[tuple[int, str, bool]]:
    """(line, embedded path, in a code block?) per embedded block, in page order.

    One per code block (the line of its first embed) and one per bare embed in
    the prose (a generated Markdown fragment). Each gets one badge.
    """
    embeds, _ = find_embeds(page, markdown)
    fenced: dict[int, Embed] = {}
    in_fences: set[int] = set()
    for fence in find_fences(page, markdown):
        lines = range(fence.line + 1, fence.line + 1 + len(fence.body))
        in_fences.update(lines)
        first = next((e for e in embeds if e.line in lines), None)
        if first is not None:
            fenced[first.line] = first
    found = [(e.line, e.path, True) for e in fenced.values()]
    found += [(e.line, e.path, False) for e in embeds if e.line not in in_fences]
    return sorted(found)


def root_problems(page: str, markdown: str) -> list[str]:
    """Embeds from an undeclared root; code blocks that embed no file, or several."""
    from docverify.embed_roots import root_of

    embeds, _ = find_embeds(page, markdown)
    problems = [
        f"{e.where}: {e.path} is not under a declared embed root; add its root, with its "
        "kind of check, to ROOTS in src/docverify/embed_roots.py"
        for e in embeds
        if root_of(e.path) is None
    ]
    for fence in find_fences(page, markdown):
        inside, malformed = find_embeds(page, "\n".join(fence.body))
        files = sorted({e.path for e in inside})
        if len(files) != 1 and not malformed:  # a malformed embed is reported already
            problems.append(
                f"{page}:{fence.line}: a code block embeds exactly one file "
                f"(one badge per block), this one embeds {len(files)}: {files}"
            )
    return problems


def page_problems(page: str, markdown: str, root: Path) -> list[str]:
    """Everything wrong with one page's code blocks and embeds."""
    embeds, problems = find_embeds(page, markdown)
    problems += fence_problems(page, markdown)
    problems += [p for e in embeds if (p := embed_problem(e, root))]
    problems += root_problems(page, markdown)
    return sorted(problems, key=_line_order)


def _line_order(problem: str) -> int:
    match = re.match(r"[^:]*:(\d+):", problem)
    return int(match[1]) if match else 0
