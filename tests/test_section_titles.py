"""Section titles come from mkdocs.yml's nav, nowhere else (the Errata page's headings use them)."""

from __future__ import annotations

import pytest

from docverify.site import site_config
from docverify.site.generated_pages import section_titles


def test_every_section_folder_gets_its_nav_title(request: pytest.FixtureRequest) -> None:
    root = request.config.rootpath
    config = site_config.load(root)
    titles = section_titles(config["nav"])
    folders = {
        p.name for p in (root / "docs").iterdir() if p.is_dir() and (p / "index.md").exists()
    }
    assert set(titles) == folders


def test_section_titles_follow_the_nav() -> None:
    nav = [
        {"Home": "index.md"},
        {"Tensors": ["tensors/index.md", {"Reshaping": "tensors/reshape.md"}]},
        {"Distributed & performance": ["distributed/index.md"]},
        {"About": ["verification.md"]},  # top-level pages: no folder, no title
    ]
    assert section_titles(nav) == {"tensors": "Tensors", "distributed": "Distributed & performance"}
