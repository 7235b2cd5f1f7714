"""The error atlas (docs/errors/) is complete: at least 30 entries, each findable by pasting.

An entry is a `## ` heading of an atlas page (the message's stable part). Each page
is linked from the atlas index and has at least one pasted-error search case per
entry in tests/search_cases.yaml (run in the browser by tests/test_search_browser.py).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from search_driver import load_cases

from docverify.paths import DOCS_DIR

ATLAS = DOCS_DIR / "errors"
MIN_ENTRIES = 30  # the floor


def entries(page: Path) -> list[str]:
    return re.findall(r"^## (.+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)


def atlas_pages() -> list[Path]:
    return sorted(p for p in ATLAS.glob("*.md") if p.name != "index.md" and ".zh." not in p.name)


def test_the_atlas_has_at_least_thirty_entries() -> None:
    counts = {p.stem: len(entries(p)) for p in atlas_pages()}
    assert sum(counts.values()) >= MIN_ENTRIES, counts


def test_every_atlas_page_is_linked_from_the_index() -> None:
    index = (ATLAS / "index.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in atlas_pages() if f"]({p.name}" not in index]
    assert not unlinked, f"docs/errors/index.md does not link {unlinked}"


def test_every_entry_has_pasted_search_cases() -> None:
    cases = Counter(c.page.strip("/") for c in load_cases("pasted_errors"))
    short = {
        f"errors/{p.stem}": (cases[f"errors/{p.stem}"], len(entries(p)))
        for p in atlas_pages()
        if cases[f"errors/{p.stem}"] < len(entries(p))
    }
    assert not short, f"pasted-error cases vs entries per page (add cases to tests/search_cases.yaml): {short}"
