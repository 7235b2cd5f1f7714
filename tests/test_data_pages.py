"""Checks of the Data section beyond what every snippet gets (tests/test_snippets.py).

- The error page can be found by pasting the error: its prose holds the exact
  message the snippet's `#>` line shows (the site search indexes prose).
- Generated pictures stay small, and every picture a Data page links exists.
- The shared photo helper gives the documented size, fresh copies, and fails
  loudly on mismatched titles.
"""

from __future__ import annotations

import re

import pytest

from docverify.paths import DOCS_DIR, GENERATED_DIR, REPO_ROOT
from ptnotes.data_images import sample_photo, save_image_grid

DATA_DOCS = DOCS_DIR / "data"
DATA_FIGURES = GENERATED_DIR / "data"
MAX_PNG_BYTES = 150_000
ERROR_PAGE = DATA_DOCS / "batch-size-error.md"
ERROR_SNIPPET = REPO_ROOT / "snippets" / "data" / "batch-size-error.py"


def test_error_page_prose_holds_the_printed_error() -> None:
    shown = [
        line.split("#> ", 1)[1]
        for line in ERROR_SNIPPET.read_text(encoding="utf-8").splitlines()
        if "#> ValueError: Expected input batch_size" in line
    ]
    assert shown, "the snippet no longer prints the batch-size error"
    page = ERROR_PAGE.read_text(encoding="utf-8")
    assert f"`{shown[0]}`" in page, f"{ERROR_PAGE.name} must quote the exact message: {shown[0]}"
    assert page.splitlines()[page.splitlines().index("---", 1) + 2].startswith("# `Expected input")


@pytest.mark.parametrize("png", sorted(DATA_FIGURES.glob("*.png")), ids=lambda p: p.name)
def test_generated_pictures_are_small(png) -> None:
    size = png.stat().st_size
    assert size < MAX_PNG_BYTES, f"{png.name} is {size} bytes; keep pictures under {MAX_PNG_BYTES}"


@pytest.mark.parametrize("page", sorted(DATA_DOCS.glob("*.md")), ids=lambda p: p.name)
def test_linked_pictures_exist(page) -> None:
    for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
        assert (page.parent / target).resolve().is_file(), f"{page.name}: missing picture {target}"


def test_sample_photo_size_and_copies() -> None:
    photo = sample_photo()
    assert (photo.mode, photo.size) == ("RGB", (128, 150))
    assert sample_photo(64).size == (64, 75)
    photo.putpixel((0, 0), (1, 2, 3))
    assert sample_photo().getpixel((0, 0)) != (1, 2, 3)  # callers get their own copy


def test_image_grid_needs_one_title_per_image() -> None:
    with pytest.raises(ValueError, match="2 images but 1 titles"):
        save_image_grid([sample_photo(), sample_photo()], ["one"], "data/never-written")
    assert not (DATA_FIGURES / "never-written.png").exists()
