"""The page program: the code a page shows, in page order, as one script.

A reader who copies a page's code blocks top to bottom must get a program that
runs and prints what the page shows. This module builds that program from
exactly the snippet sections the page embeds (as pymdownx.snippets renders
them: marker lines dropped, each section dedented), so that tests can run it
and the build can offer it as a download.

    python -m docverify.page_program docs/tensors/reshape.md          # print it
    python -m docverify.page_program docs/tensors/reshape.md | python -   # run it
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from docverify.embeds import SECTION_MARKER, Embed, find_embeds, find_fences, read_sections


@dataclass(frozen=True)
class ProgramPart:
    """One embedded block of the page, as the reader sees it."""

    embed: Embed
    code: str  # dedented, marker lines removed
    first_line: int  # line in the embedded file of the first line of `code`


def _section_text(embed: Embed, root: Path) -> tuple[str, int]:
    path = root / embed.path
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    if embed.section is None:
        start, end = 1, len(lines)
    else:
        section = next(s for s in read_sections(embed.path, source) if s.name == embed.section)
        start, end = section.start_line + 1, section.end_line - 1
    body = [line for line in lines[start - 1 : end] if not SECTION_MARKER.search(line)]
    return textwrap.dedent("\n".join(body)), start


def page_parts(page: str, markdown: str, root: Path, *, suffix: str = ".py") -> list[ProgramPart]:
    """Every embed inside a code fence of the page, in page order, of files ending in `suffix`."""
    parts = []
    for fence in find_fences(page, markdown):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        for embed in embeds:
            if not embed.path.endswith(suffix):
                continue
            located = Embed(page, fence.line + embed.line, embed.path, embed.section)
            code, first_line = _section_text(located, root)
            parts.append(ProgramPart(located, code, first_line))
    return parts


def page_program(page: str, markdown: str, root: Path) -> str:
    """The page's Python code blocks joined in page order, ready to run."""
    return "\n\n".join(part.code.strip("\n") for part in page_parts(page, markdown, root)) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m docverify.page_program docs/<section>/<page>.md", file=sys.stderr)
        return 2
    page = Path(argv[0])
    root = Path.cwd()
    sys.stdout.write(page_program(page.as_posix(), page.read_text(encoding="utf-8"), root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
