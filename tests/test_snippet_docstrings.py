"""A snippet's docstring names the page that shows it: `Page: docs/<section>/<page>.md`.

The page must exist and embed the snippet, so a renamed or misspelt page (as
`docs/environment/argparse.md` once was in argparse_pitfalls.py) fails here.
Sections listed in CHECKED_SECTIONS follow the rule; add a section once its
snippets do.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from docverify.paths import REPO_ROOT

CHECKED_SECTIONS = ("tensors", "environment")
_PAGE_LINE = re.compile(r"^Page: (?P<page>\S+)$", re.MULTILINE)


def _snippets() -> list[Path]:
    return sorted(
        path
        for section in CHECKED_SECTIONS
        for path in (REPO_ROOT / "snippets" / section).glob("*.py")
        if not path.name.startswith("_")
    )


def page_problem(snippet: Path, root: Path = REPO_ROOT) -> str | None:
    """Why the snippet's `Page:` line is wrong, or None."""
    rel = snippet.relative_to(root).as_posix()
    doc = ast.get_docstring(ast.parse(snippet.read_text(encoding="utf-8"))) or ""
    match = _PAGE_LINE.search(doc)
    if not match:
        return f"{rel}: the docstring has no `Page: docs/<section>/<page>.md` line"
    page = root / match["page"]
    if not page.is_file():
        return f"{rel}: `Page: {match['page']}` names a page that does not exist"
    if f'"{rel}' not in page.read_text(encoding="utf-8"):
        return f"{rel}: `Page: {match['page']}` does not embed this snippet"
    return None


@pytest.mark.parametrize("snippet", _snippets(), ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_snippet_names_its_page(snippet: Path) -> None:
    problem = page_problem(snippet)
    assert problem is None, problem


def test_a_wrong_page_line_is_reported(tmp_path: Path) -> None:
    (tmp_path / "snippets" / "environment").mkdir(parents=True)
    (tmp_path / "docs" / "environment").mkdir(parents=True)
    snippet = tmp_path / "snippets" / "environment" / "argparse_pitfalls.py"
    snippet.write_text('"""argparse.\n\nPage: docs/environment/argparse.md\n"""\n')
    assert page_problem(snippet, tmp_path) == (
        "snippets/environment/argparse_pitfalls.py: `Page: docs/environment/argparse.md` "
        "names a page that does not exist"
    )
