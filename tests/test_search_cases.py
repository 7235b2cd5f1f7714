"""tests/search_cases.yaml is a fair test: real pages, both languages, questions not copied,
each pasted error's `entry` a heading of its page.

The browser test (tests/test_search_browser.py) measures the search against
these cases; this checks the cases themselves, without a browser.
"""

from __future__ import annotations

import re

import pytest
from search_driver import Case, load_cases

from docverify.i18n import languages, translations
from docverify.paths import DOCS_DIR

LOOKUPS = load_cases("lookups")
QUESTIONS = load_cases("questions")
CHINESE_IN_ENGLISH = load_cases("chinese_in_english")
PASTED_ERRORS = load_cases("pasted_errors")
_CHINESE = re.compile(r"[\u3400-\u9fff]")


def _source(case: Case) -> str:
    """The English page's file under docs/: `losses/binary/` or a section's `losses/`."""
    path = case.page.strip("/")
    return f"{path}.md" if (DOCS_DIR / f"{path}.md").is_file() else f"{path}/index.md".lstrip("/")


def _page_texts(case: Case) -> list[str]:
    return [
        (DOCS_DIR / languages.twin(_source(case), lang)).read_text(encoding="utf-8")
        for lang in languages.LANGUAGES
    ]


def test_every_case_names_a_page_and_an_edition() -> None:
    bad = [
        c
        for c in LOOKUPS + QUESTIONS + CHINESE_IN_ENGLISH + PASTED_ERRORS
        if c.lang not in languages.LANGUAGES or not (DOCS_DIR / _source(c)).is_file()
    ]
    assert not bad, bad


def test_questions_are_at_least_forty_half_of_them_chinese() -> None:
    chinese = [q for q in QUESTIONS if q.lang == "zh"]
    english = [q for q in QUESTIONS if q.lang == "en"]
    assert len(QUESTIONS) >= 40 and len(chinese) >= 20 and len(english) >= 20
    assert all(_CHINESE.search(q.query) for q in chinese), "a zh question without Chinese"
    assert not any(_CHINESE.search(q.query) for q in english), "an en question in Chinese"


def test_chinese_queries_for_the_english_edition_are_chinese() -> None:
    assert len(CHINESE_IN_ENGLISH) >= 30
    assert all(c.lang == "en" and _CHINESE.search(c.query) for c in CHINESE_IN_ENGLISH)


def test_no_question_is_asked_twice() -> None:
    for cases in (QUESTIONS, CHINESE_IN_ENGLISH):
        queries = [q.query.casefold() for q in cases]
        assert len(queries) == len(set(queries))


def copied(case: Case, texts: list[str]) -> bool:
    """The question occurs as it stands in its page (either language): copied, not asked."""
    query = case.query.casefold()
    return any(query in text.casefold() for text in texts)


# A pasted error carries the reader's own numbers and paths, not the page's; one taken from
# the demand corpus (`source:`) is what a reader really pasted, and a short message with
# nothing of the reader's in it is the page's own words too.
@pytest.mark.parametrize(
    "case",
    QUESTIONS + CHINESE_IN_ENGLISH + [c for c in PASTED_ERRORS if not c.source],
    ids=lambda c: c.query,
)
def test_a_question_is_not_copied_from_its_page(case: Case) -> None:
    assert not copied(case, _page_texts(case)), f"{case.query!r} occurs in {case.page}"


# The browser test checks that the first result's link opens this heading, in both editions.
@pytest.mark.parametrize("case", PASTED_ERRORS, ids=lambda c: c.query)
def test_a_pasted_error_names_an_entry_of_its_page(case: Case) -> None:
    for lang in languages.LANGUAGES:
        path = DOCS_DIR / languages.twin(_source(case), lang)
        ids = translations.anchors(path.read_text(encoding="utf-8"))
        assert case.entry in ids, f"{case.query!r}: #{case.entry} is no heading of {path.name}"


def test_a_copied_question_is_caught() -> None:
    heading = Case("Multi-label targets", "losses/binary/", "en")
    assert copied(heading, _page_texts(heading))
