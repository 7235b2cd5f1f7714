"""Phase: where each code block's output holds, from the version matrix (`make matrix`).

- Under every code block that embeds a snippet section: "Same output on torch
  A–B · Python X–Y" (the stacks whose record of the file is current and on which
  the section printed what the page shows, raising and warning nothing), and, per
  group of stacks that differ alike, a fold "torch 2.4–2.5 raises:" with what was
  recorded there. A stack whose record is of an older version of the file is named
  as stale, never counted. Each block's line has an id per `#>` block in it
  (docverify.matrix.records.matrix_anchor), so a link can point at one block's record.
- Under each page title: the versions on which every block of the page holds.
- The Verification page: the whole matrix, pages by stacks.

It runs before the badge phase (docverify.site.plugin), so that the badge line
stays the first line under each block (the built-HTML badge check expects it there).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from docverify.contract import embed_roots
from docverify.contract.embeds import find_embeds, find_fences, read_sections
from docverify.contract.page_title import under_title
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.site.state import SiteBuild
from docverify.matrix.records import matrix_anchor, shown_blocks
from docverify.matrix.view import (
    DIFFERS,
    MISSING,
    NOT_RUN,
    SAME,
    STALE,
    Matrix,
    Note,
    Outcome,
    group_differences,
)

MATRIX_MARKER = "<!-- version-matrix-table -->"



# --- text ----------------------------------------------------------------------------------


def _escape(value: str) -> str:
    """Raw text for inline HTML that Markdown leaves alone: every ASCII punctuation an entity.

    Recorded output and error messages hold `*`, `_`, backticks and brackets, which
    Markdown would otherwise read as emphasis, code or links.
    """
    return "".join(
        f"&#{ord(c)};" if (c.isascii() and not c.isalnum() and c not in " \n") else c for c in value
    ).replace("\n", "&#10;")


def ranges_text(matrix: Matrix, names: set[str], lang: str) -> str:
    torch, python = matrix.ranges(names)
    none = text(lang, "matrix.no_version")
    return text(lang, "matrix.ranges", torch=torch or none, python=python or none)


def where_text(matrix: Matrix, names: set[str], lang: str) -> str:
    """'torch 2.4–2.5', 'Python 3.13', or both: the stacks of one group, by axis."""
    pinned = matrix.pinned.name
    torch, _ = matrix.ranges({n for n in names if n != pinned} & _names(matrix.torch_axis()))
    _, python = matrix.ranges({n for n in names if n != pinned} & _names(matrix.python_axis()))
    parts = [f"torch {torch}" if torch else "", f"Python {python}" if python else ""]
    if pinned in names:
        parts.append(text(lang, "matrix.pinned"))
    return " · ".join(p for p in parts if p)


def _names(axis) -> set[str]:
    return {s.name for s in axis}


def _verb(notes: tuple[Note, ...], lang: str) -> str:
    kinds = {"not_reached": "raises"}.get
    found = {kinds(n.kind, n.kind) for n in notes}
    return text(lang, f"matrix.verb.{found.pop() if len(found) == 1 else 'differs'}")


def note_html(note: Note, code: str, lang: str) -> str:
    """One recorded difference as inline HTML: which statement (its first line of `code`,
    the snippet file's line in its tooltip), and what happened there."""
    shown = code.strip() if len(code.strip()) <= 72 else code.strip()[:71] + "…"
    line = f'<code title="{text(lang, "matrix.line", line=note.line)}">{_escape(shown)}</code>'
    output = f'<samp class="matrix-output">{_escape(note.text)}</samp>' if note.text else ""
    message = f"<code>{_escape(note.message)}</code>"
    if note.kind == "prints":
        if not note.text:
            return f"{line} {text(lang, 'matrix.note.nothing')}"
        return f"{line} {text(lang, 'matrix.note.prints')}<br>{output}"
    if note.kind == "raises":
        said = f"{line} {text(lang, 'matrix.note.raises', error=message)}"
        return (
            f"{said}<br>{text(lang, 'matrix.note.printed_first')}<br>{output}" if output else said
        )
    if note.kind == "warns":
        return f"{line} {text(lang, 'matrix.note.warns', warning=message)}"
    return f"{line} {text(lang, 'matrix.note.not_reached', error=message)}"


# --- under each code block ------------------------------------------------------------------


def block_lines(
    matrix: Matrix, path: str, first: int, last: int, anchors: list[int], *, lang: str
) -> list[str]:
    """The version line and the folds under one code block (lines first..last of `path`)."""
    source = (matrix.root / path).read_text(encoding="utf-8").splitlines()
    outcomes = matrix.outcomes(path, first, last)
    kinds = {name: o.kind for name, o in outcomes.items()}
    ids = "".join(f'<span id="{matrix_anchor(path, line)}"></span>' for line in anchors)
    torch, python = matrix.tested()
    title = html.escape(text(lang, "matrix.tested", torch=torch, python=python), quote=True)
    same = {n for n, k in kinds.items() if k == SAME}
    stale = [n for n, k in kinds.items() if k == STALE]
    not_run = [o for o in outcomes.values() if o.kind == NOT_RUN]
    if not_run and len(not_run) == len(outcomes):
        words = text(lang, "matrix.not_run", reason=_reason(not_run[0], lang))
        return [f'<p class="version-range not-run" title="{title}">{ids}{words}</p>']
    if not same and not any(k == DIFFERS for k in kinds.values()):
        key = "matrix.all_stale" if stale else "matrix.missing"
        return [f'<p class="version-range stale" title="{title}">{ids}{text(lang, key)}</p>']
    everywhere = len(same) == len(outcomes)
    words = text(
        lang,
        "matrix.same_all" if everywhere else "matrix.same",
        ranges=ranges_text(matrix, same, lang),
    )
    if stale:
        names = ", ".join(stale)
        words += text(lang, "matrix.some_stale", stacks=names)
    missing = [n for n, k in kinds.items() if k == MISSING]
    if missing:
        words += text(lang, "matrix.some_missing", stacks=", ".join(missing))
    css = "version-range" + ("" if everywhere else " differs")
    lines = [f'<p class="{css}" title="{title}">{ids}{html.escape(words)}</p>']
    for names, notes in group_differences(matrix, outcomes):
        heading = f"{where_text(matrix, names, lang)} {_verb(notes, lang)}"
        lines += ["", f'??? version-differs "{heading}"']
        for note in notes:
            code = source[note.line - 1] if note.line <= len(source) else ""
            lines += [f"    {note_html(note, code, lang)}", ""]
    return lines


# The recorder's reasons for "not run" (docverify.matrix.record), as the site says them.
_REASONS = {"needs CUDA": "matrix.needs_cuda", "needs the checkout's .venv": "matrix.needs_venv"}


def _reason(outcome: Outcome, lang: str) -> str:
    key = _REASONS.get(outcome.reason)
    return text(lang, key) if key else outcome.reason


def _section_range(path: str, section: str | None, root: Path) -> tuple[int, int]:
    source = (root / path).read_text(encoding="utf-8")
    if section is None:
        return 1, len(source.splitlines())
    found = next(s for s in read_sections(path, source) if s.name == section)
    return found.start_line, found.end_line


def _print_lines(path: str, first: int, last: int, root: Path) -> list[int]:
    """The `#>` blocks (print lines) in first..last of the file as it is now: where a proof
    link `{✓ versions:name}` points, whether the stacks' records are current or stale."""
    source = (root / path).read_text(encoding="utf-8")
    try:
        return sorted(line for line in shown_blocks(source, path) if first <= line <= last)
    except SyntaxError:  # saved mid-edit
        return []


def add_block_lines(
    page: str, markdown: str, matrix: Matrix, lang: str, root: Path
) -> tuple[str, set[str] | None]:
    """The markdown with each snippet block's version lines, and the stacks where all of
    them hold: None when no block of the page has a result (none the matrix runs, or
    none recorded for the code as it is now)."""
    lines = markdown.splitlines()
    inserts = []
    holds = {s.name for s in matrix.stacks}
    counted = False
    for fence in find_fences(page, markdown):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        runs = [
            e
            for e in embeds
            if e.path.endswith(".py")
            and (r := embed_roots.root_of(e.path))
            and r.kind == embed_roots.RUN
        ]
        if len(runs) != 1:
            continue
        embed = runs[0]
        first, last = _section_range(embed.path, embed.section, root)
        anchors = _print_lines(embed.path, first, last, root)
        outcomes = matrix.outcomes(embed.path, first, last)
        if any(o.kind in (SAME, DIFFERS) for o in outcomes.values()):
            holds &= {n for n, o in outcomes.items() if o.kind == SAME}
            counted = True
        indent = re.match(r"[ \t]*", lines[fence.line - 1]).group(0)
        close_index = fence.line + len(fence.body)
        found = block_lines(matrix, embed.path, first, last, anchors, lang=lang)
        inserts.append((close_index + 1, indent, found))
    for at, indent, found in sorted(inserts, reverse=True):
        nested = [(indent + _nested(line) if line else "") for line in found]
        lines[at:at] = ["", *nested, ""]
    return "\n".join(lines) + "\n", (holds if counted else None)


def _nested(line: str) -> str:
    """Inside a box or a tab a raw <p> would sit inside Markdown's own <p>: use a <span>."""
    return re.sub(r"</p>$", "</span>", re.sub(r"^<p ", "<span ", line))


def page_line(matrix: Matrix, holds: set[str], lang: str) -> str:
    """Under the title: the stacks on which every block of the page prints what it shows."""
    everywhere = len(holds) == len(matrix.stacks)
    key = "matrix.page_all" if everywhere else "matrix.page"
    words = text(lang, key, ranges=ranges_text(matrix, holds, lang))
    return f'<p class="version-holds">{html.escape(words)}</p>'


# --- the Verification page ------------------------------------------------------------------


def matrix_table(matrix: Matrix, pages: dict[str, list[str]], lang: str) -> str:
    """Pages by stacks: ✓ where every block of the page holds, else how many blocks differ."""
    header = [text(lang, "matrix.table.page")]
    for stack in matrix.stacks:
        if stack == matrix.pinned:
            header.append(f"**{stack.torch}<br>Py {stack.python}**")
        elif stack.python == matrix.pinned.python:
            header.append(stack.torch)
        else:
            header.append(f"Py {stack.python}")
    rows = [
        text(lang, "matrix.table.legend"),
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for page, scripts in pages.items():
        cells = [f"[{page}]({page})"]
        for stack in matrix.stacks:
            outcomes = [matrix.outcome(stack, s) for s in scripts]
            cells.append(_cell(outcomes, lang))
        rows.append("| " + " | ".join(cells) + " |")
    rows += ["", text(lang, "matrix.table.stacks"), ""]
    for stack in matrix.stacks:
        result = matrix.results.get(stack.name)
        versions = ", ".join(f"{p} {v}" for p, v in stack.packages)
        if result is None:
            rows.append(f"- `{stack.name}`: {versions}; {text(lang, 'matrix.table.no_result')}")
        else:
            ran = text(
                lang, "matrix.table.ran", date=result.date, seconds=f"{result.duration_s:.0f}"
            )
            rows.append(
                f"- `{stack.name}`: Python {result.environment.get('python', stack.python)}, {versions}; {ran}"
            )
    return "\n".join(rows)


def _cell(outcomes: list[Outcome], lang: str) -> str:
    kinds = {o.kind for o in outcomes}
    if not outcomes or kinds <= {NOT_RUN}:
        return text(lang, "matrix.table.not_run")
    if STALE in kinds:
        return text(lang, "matrix.table.stale")
    if MISSING in kinds:
        return "—"
    differ = sum(len(o.notes) for o in outcomes if o.kind == DIFFERS)
    return "✓" if not differ else text(lang, "matrix.table.differ", n=differ)


# --- the phase ------------------------------------------------------------------------------


def add(build: SiteBuild, markdown: str, page) -> str:
    matrix = build.matrix
    if matrix is None:
        return markdown
    lang = build.lang
    src = f"docs/{page.file.src_uri}"
    if MATRIX_MARKER in markdown:
        markdown = markdown.replace(MATRIX_MARKER, matrix_table(matrix, _pages(build), lang))
    markdown, holds = add_block_lines(src, markdown, matrix, lang, build.root)
    if holds is not None:
        markdown = under_title(markdown, page_line(matrix, holds, lang))
    return markdown


def _pages(build: SiteBuild) -> dict[str, list[str]]:
    """English page -> the snippet scripts it embeds (run with outputs compared)."""
    found = {}
    for page, path in languages.pages_in(build.docs_dir, languages.DEFAULT):
        embeds, _ = find_embeds(page, path.read_text(encoding="utf-8"))
        scripts = sorted(
            {
                e.path
                for e in embeds
                if e.path.endswith(".py")
                and (r := embed_roots.root_of(e.path))
                and r.kind == embed_roots.RUN
            }
        )
        if scripts:
            found[page] = scripts
    return found
