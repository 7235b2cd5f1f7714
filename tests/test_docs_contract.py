"""Pages hold prose only; every code block is an embed that resolves; nothing is orphaned."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docverify import snippets as snippet_file
from docverify.embeds import Embed, find_embeds, page_problems
from docverify.paths import DOCS_DIR, REPO_ROOT

PAGES = sorted(DOCS_DIR.rglob("*.md"))


def _rel(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _all_embeds() -> list[Embed]:
    embeds: list[Embed] = []
    for page in PAGES:
        found, _ = find_embeds(_rel(page), page.read_text(encoding="utf-8"))
        embeds += found
    return embeds


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_page_code_blocks_are_resolvable_embeds(page: Path) -> None:
    problems = page_problems(_rel(page), page.read_text(encoding="utf-8"), REPO_ROOT)
    assert not problems, "\n".join(problems)


def unembedded(snippet_paths: list[Path], embeds: list[Embed]) -> list[str]:
    """file:line of every snippet file, or section, that no embed shows."""
    whole_files = {e.path for e in embeds if e.section is None}
    sections = {(e.path, e.section) for e in embeds if e.section}
    problems = []
    for path in snippet_paths:
        snippet = snippet_file.load(path)
        if snippet.rel in whole_files:
            continue
        if not snippet.sections:
            problems.append(f"{snippet.rel}:1: no page embeds this snippet file")
        for section in snippet.sections:
            if (snippet.rel, section.name) not in sections:
                problems.append(
                    f"{snippet.rel}:{section.start_line}: no page embeds section `{section.name}`"
                )
    return problems


def test_every_snippet_file_and_section_is_embedded() -> None:
    problems = unembedded(snippet_file.discover(), _all_embeds())
    assert not problems, "\n".join(problems)


def test_an_unembedded_file_or_section_is_reported(tmp_path: Path) -> None:
    shown = tmp_path / "shown.py"
    shown.write_text(
        "# --8<-- [start:a]\nx = 1\n# --8<-- [end:a]\n# --8<-- [start:b]\n# --8<-- [end:b]\n"
    )
    hidden = tmp_path / "hidden.py"
    hidden.write_text("x = 1\n")
    embeds = [Embed("docs/p.md", 3, shown.as_posix(), "a")]
    assert unembedded([shown, hidden], embeds) == [
        f"{shown.as_posix()}:4: no page embeds section `b`",
        f"{hidden.as_posix()}:1: no page embeds this snippet file",
    ]


# Pages whose body the build generates (hooks/verification.py, the tags plugin).
GENERATED_MARKERS = (
    "<!-- verification-table -->",
    "<!-- errata-list -->",
    "<!-- material/tags -->",
)


def _is_index_or_generated(page: Path) -> bool:
    text = page.read_text(encoding="utf-8")
    return page.name == "index.md" or any(marker in text for marker in GENERATED_MARKERS)


def test_content_pages_embed_their_code() -> None:
    # Content pages prove what they say; only index and generated pages may be prose alone.
    embedding_pages = {e.page for e in _all_embeds()}
    prose_only = [
        _rel(p) for p in PAGES if _rel(p) not in embedding_pages and not _is_index_or_generated(p)
    ]
    assert not prose_only, f"content pages without any embedded snippet: {prose_only}"


# --- the rules themselves, tried on broken input -------------------------------------------


def test_hand_written_code_in_a_page_is_reported_with_page_and_line(tmp_path: Path) -> None:
    markdown = 'Intro\n\n```python\n--8<-- "snippets/tensors/reshape.py:view"\nx = 1\n```\n'
    assert page_problems("docs/p.md", markdown, REPO_ROOT) == [
        "docs/p.md:3: code block `python` contains hand-written lines; "
        "embed them from snippets/ instead: 'x = 1'"
    ]


def test_missing_file_or_section_is_reported_with_page_and_line() -> None:
    markdown = (
        '```python\n--8<-- "snippets/tensors/reshape.py:no-such-section"\n```\n\n'
        '```python\n--8<-- "snippets/nowhere.py"\n```\n'
    )
    assert page_problems("docs/p.md", markdown, REPO_ROOT) == [
        "docs/p.md:2: snippets/tensors/reshape.py has no section `no-such-section`",
        "docs/p.md:6: embedded file snippets/nowhere.py does not exist",
    ]


def test_line_range_embeds_are_refused() -> None:
    problems = page_problems(
        "docs/p.md", '```python\n--8<-- "snippets/tensors/reshape.py:1:5"\n```\n', REPO_ROOT
    )
    assert problems and problems[0].startswith('docs/p.md:2: use --8<-- "path"')


CONTENT_PAGES = [p for p in PAGES if not _is_index_or_generated(p)]
SECTION_INDEXES = sorted(DOCS_DIR.glob("*/index.md"))
_CORRECTION_TITLE = re.compile(r'^(?:!!!|\?\?\?\+?) correction "Correction: .+"$')


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=_rel)
def test_content_page_has_tags_and_chinese_search_terms(page: Path) -> None:
    # Readers of the original notes search in Chinese; tags build the Tags index.
    text = page.read_text(encoding="utf-8")
    assert text.startswith("---\ntags:\n"), f"{_rel(page)}:1: front matter must start with `tags:`"
    after_title = text.split("\n# ", 1)[1].splitlines()
    first_line = next(line for line in after_title[1:] if line.strip())
    assert re.fullmatch(r"\*中文: .+\*", first_line), (
        f"{_rel(page)}: the first line under the title must be `*中文: ...*` search terms"
    )


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=_rel)
def test_corrections_quote_the_original(page: Path) -> None:
    # The Errata page shows each box's first line: it must be the original claim.
    lines = page.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*(?:!!!|\?\?\?)\+? correction", line):
            assert _CORRECTION_TITLE.match(line.strip()), f"{_rel(page)}:{i + 1}: malformed title"
            body = next(b.strip() for b in lines[i + 1 :] if b.strip())
            assert body.startswith("原文"), f"{_rel(page)}:{i + 1}: first line must quote 原文"


@pytest.mark.parametrize("index", SECTION_INDEXES, ids=_rel)
def test_section_index_links_every_page(index: Path) -> None:
    text = index.read_text(encoding="utf-8")
    pages = sorted(p.name for p in index.parent.glob("*.md") if p.name != "index.md")
    missing = [name for name in pages if f"]({name})" not in text]
    assert not missing, f"{_rel(index)} does not link: {missing}"
