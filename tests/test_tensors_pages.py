"""Tensors section: page conventions the generic contract does not check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptnotes.paths import DOCS_DIR, REPO_ROOT

SECTION_DOCS = DOCS_DIR / "tensors"
SECTION_SNIPPETS = REPO_ROOT / "snippets" / "tensors"
CONTENT_PAGES = sorted(p for p in SECTION_DOCS.glob("*.md") if p.name != "index.md")
_CORRECTION = re.compile(r"^!!! correction \"Correction: .+\"$")


def _ids(path: Path) -> str:
    return path.name


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=_ids)
def test_page_has_tags_title_and_chinese_terms(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.startswith("---\ntags:\n"), f"{page.name}: front matter with tags: first"
    after_title = text.split("\n# ", 1)[1].splitlines()
    first_line = next(line for line in after_title[1:] if line.strip())
    assert re.fullmatch(r"\*中文: .+\*", first_line), f"{page.name}: italic 中文 line under H1"


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=_ids)
def test_corrections_quote_the_original(page: Path) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("!!! correction"):
            assert _CORRECTION.match(line), f"{page.name}:{i + 1}: malformed title"
            body = next(b.strip() for b in lines[i + 1 :] if b.strip())
            assert body.startswith("原文: "), f"{page.name}:{i + 1}: first line quotes 原文"


def test_each_snippet_has_its_page_and_each_page_its_snippet() -> None:
    snippets = {p.stem for p in SECTION_SNIPPETS.glob("*.py") if not p.name.startswith("_")}
    pages = {p.stem for p in CONTENT_PAGES}
    assert snippets == pages
    for stem in pages:
        text = (SECTION_DOCS / f"{stem}.md").read_text(encoding="utf-8")
        assert f'--8<-- "snippets/tensors/{stem}.py' in text, f"{stem}.md embeds {stem}.py"


def test_index_links_every_page() -> None:
    index = (SECTION_DOCS / "index.md").read_text(encoding="utf-8")
    missing = [p.name for p in CONTENT_PAGES if f"]({p.name})" not in index]
    assert not missing, f"docs/tensors/index.md does not link: {missing}"
