"""Section titles come from each section's index page (the nav and the Errata page's headings use them)."""

from __future__ import annotations

import pytest

from docverify.i18n import languages
from docverify.site import nav


def test_every_section_folder_gets_its_title_in_both_languages(
    request: pytest.FixtureRequest,
) -> None:
    docs = request.config.rootpath / "docs"
    found, problems = nav.pages(docs)
    assert problems == []
    folders = {p.name for p in docs.iterdir() if p.is_dir() and (p / "index.md").exists()}
    for lang in languages.LANGUAGES:
        titles = nav.section_titles(found, lang)
        assert set(titles) == folders and all(titles.values()), (lang, titles)
    # The English title is the index page's heading: the Errata page's anchors use it.
    heading = (docs / "training" / "index.md").read_text(encoding="utf-8")
    assert f"# {nav.section_titles(found)['training']}\n" in heading
