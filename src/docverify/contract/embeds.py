"""The docs contract: how pages embed code, in one place.

Used by the build (docverify.site.embed_check), which fails the build
naming page:line, and by tests/test_docs_contract.py, which also checks the
reverse direction (every snippet file and section is embedded somewhere).

A page embeds code only with pymdownx.snippets lines inside a fence:

    --8<-- "snippets/<section>/<page>.py:<name>"   one named section
    --8<-- "snippets/<section>/<page>.py"          the whole file

and a snippet file marks sections with `# --8<-- [start:name]` / `[end:name]`
(docverify.contract.sections reads them as pymdownx does). Every embedded path must
belong to a root declared in docverify.contract.embed_roots (with its kind of check),
and a code block embeds exactly one file, so that each block gets exactly one
badge saying how it is checked. Code written into the page, fenced or indented,
is refused.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pymdownx.snippets import SnippetPreprocessor

from docverify.contract.embed_roots import ROOTS, EmbedRoot, root_of
from docverify.contract.sections import SnippetFormatError, read_sections
from docverify.problems import Problem

_ANY_SNIPPET_SYNTAX = SnippetPreprocessor.RE_ALL_SNIPPETS
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
# What this site allows of pymdownx's syntax: one file, optionally one named section.
_TARGET = re.compile(r'^"(?P<path>[^":]+?)(?::(?P<section>[a-z][-_0-9a-z]*))?"$')


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


def find_embeds(page: str, markdown: str) -> tuple[list[Embed], list[Problem]]:
    """Every snippet embed on a page, and problems with embed syntax (page:line)."""
    embeds: list[Embed] = []
    problems: list[Problem] = []
    for lineno, line in enumerate(markdown.splitlines(), start=1):
        found = _ANY_SNIPPET_SYNTAX.match(line)
        if not found or found["escape"]:
            continue
        target = _TARGET.match(found["snippet"] or "")
        if not target:
            problems.append(
                Problem(
                    page,
                    lineno,
                    'use --8<-- "path" or --8<-- "path:section" (no block form, line ranges '
                    f"or commented-out embeds): {line.strip()}",
                )
            )
            continue
        embeds.append(Embed(page, lineno, target["path"], target["section"]))
    return embeds, problems


def fence_problems(page: str, markdown: str) -> list[Problem]:
    """Code blocks must only embed files: no hand-written code or output in Markdown."""
    problems = []
    for fence in find_fences(page, markdown):
        written = [line for line in fence.body if line.strip() and not _TARGET_LINE.match(line)]
        if written:
            problems.append(
                Problem(
                    page,
                    fence.line,
                    f"code block `{fence.info or 'no language'}` contains hand-written lines; "
                    f"embed them from snippets/ instead: {written[0].strip()!r}",
                )
            )
    return problems


_TARGET_LINE = re.compile(r'^\s*-+8<-+\s+"[^"]*"\s*$')


def embed_problem(embed: Embed, root: Path) -> Problem | None:
    """Why an embed cannot be resolved, naming page:line, or None."""
    target = root / embed.path
    if not target.is_file():
        return Problem(embed.page, embed.line, f"embedded file {embed.path} does not exist")
    if embed.section is None:
        return None
    try:
        sections = read_sections(embed.path, target.read_text(encoding="utf-8"))
    except SnippetFormatError as exc:
        return Problem(embed.page, embed.line, str(exc.problem))
    if embed.section not in {s.name for s in sections}:
        return Problem(embed.page, embed.line, f"{embed.path} has no section `{embed.section}`")
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


def root_problems(page: str, markdown: str) -> list[Problem]:
    """Embeds from an undeclared root; code blocks that embed no file, or several."""

    embeds, _ = find_embeds(page, markdown)
    problems = [
        Problem(
            page,
            e.line,
            f"{e.path} is not under a declared embed root; add its root, with its "
            "kind of check, to ROOTS in src/docverify/contract/embed_roots.py",
        )
        for e in embeds
        if root_of(e.path) is None
    ]
    for fence in find_fences(page, markdown):
        inside, malformed = find_embeds(page, "\n".join(fence.body))
        files = sorted({e.path for e in inside})
        if len(files) != 1 and not malformed:  # a malformed embed is reported already
            problems.append(
                Problem(
                    page,
                    fence.line,
                    "a code block embeds exactly one file (one badge per block), "
                    f"this one embeds {len(files)}: {files}",
                )
            )
    return problems


def indented_code_problems(page: str, markdown: str) -> list[Problem]:
    """Indented code blocks (four spaces after a blank line): code written into the page.

    Found the way Markdown finds them: the page is rendered with its block
    extensions but without pymdownx.snippets, so a `<pre>` that is not one of the
    page's fences is code typed into the page.
    """
    import html

    import markdown as md

    rendered = md.markdown(
        markdown,
        extensions=["admonition", "pymdownx.details", "pymdownx.superfences", "md_in_html"],
        extension_configs={"pymdownx.superfences": {"disable_indented_code_blocks": False}},
    )
    fenced = ["\n".join(f.body).strip() for f in find_fences(page, markdown)]
    problems = []
    for block in re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", rendered, re.DOTALL):
        code = html.unescape(block).strip()
        if code in fenced:
            continue
        first = code.splitlines()[0] if code else ""
        line = next(
            (n for n, text in enumerate(markdown.splitlines(), 1) if first and first in text), 0
        )
        problems.append(
            Problem(
                page,
                line,
                "an indented code block (four spaces after a blank line); embed the code "
                f"from snippets/ in a fenced block instead: {first!r}",
            )
        )
    return problems


def page_problems(page: str, markdown: str, root: Path, *, indented: bool = True) -> list[Problem]:
    """Everything wrong with one page's code blocks and embeds.

    `indented=False` leaves out indented code blocks, which cost a Markdown render of
    the page: the build finds them in the page it renders anyway (a code block without
    its badge, docverify.site.badges.badge_problems), naming page:line.
    """
    embeds, problems = find_embeds(page, markdown)
    problems += fence_problems(page, markdown)
    problems += [p for e in embeds if (p := embed_problem(e, root))]
    problems += root_problems(page, markdown)
    if indented:
        problems += indented_code_problems(page, markdown)
    return sorted(problems)


# --- every embedded block of the site, for the headline and the Verification page ---------


@dataclass(frozen=True)
class EmbeddedBlock:
    page: str  # docs-relative page path
    line: int
    path: str  # embedded file
    in_fence: bool  # a code block (True) or a generated Markdown fragment in the prose (False)
    root: EmbedRoot | None


def blocks(docs_dir: Path, roots: tuple[EmbedRoot, ...] = ROOTS) -> list[EmbeddedBlock]:
    """Every embedded block on the site: one per code block, one per bare prose embed."""
    from docverify.i18n.languages import source_pages

    found = []
    for md in source_pages(docs_dir):  # the translations embed exactly the same blocks
        page = md.relative_to(docs_dir).as_posix()
        for line, path, in_fence in page_blocks(page, md.read_text(encoding="utf-8")):
            found.append(EmbeddedBlock(page, line, path, in_fence, root_of(path, roots)))
    return found


def counts(found: list[EmbeddedBlock]) -> tuple[Counter, Counter]:
    """(code blocks per kind, prose fragments per kind)."""
    code = Counter(b.root.kind if b.root else "undeclared" for b in found if b.in_fence)
    prose = Counter(b.root.kind if b.root else "undeclared" for b in found if not b.in_fence)
    return code, prose
