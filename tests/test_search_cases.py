"""tests/search_cases.yaml is a fair test: real pages, both languages, questions not copied,
each pasted error's `entry` a heading of its page, the demand corpus's errors and questions
all there, and each `also` answer a page that quotes the pasted message.

The browser test (tests/test_search_browser.py) measures the search against
these cases; this checks the cases themselves, without a browser.
"""

from __future__ import annotations

import re

import pytest
from search_driver import Case, load_cases

from docverify.contract import demand
from docverify.i18n import languages, translations
from docverify.paths import DOCS_DIR

LOOKUPS = load_cases("lookups")
QUESTIONS = load_cases("questions")
CHINESE_IN_ENGLISH = load_cases("chinese_in_english")
PASTED_ERRORS = load_cases("pasted_errors")
CORPUS_QUESTIONS = load_cases("corpus_questions")
_CHINESE = re.compile(r"[\u3400-\u9fff]")


def _source(case: Case) -> str:
    """The English page's file under docs/: `losses/binary/` or a section's `losses/`."""
    return _page_file(case.page)


def _page_file(page: str) -> str:
    path = page.strip("/")
    return f"{path}.md" if (DOCS_DIR / f"{path}.md").is_file() else f"{path}/index.md".lstrip("/")


def _page_texts(case: Case) -> list[str]:
    return [
        (DOCS_DIR / languages.twin(_source(case), lang)).read_text(encoding="utf-8")
        for lang in languages.LANGUAGES
    ]


def test_every_case_names_a_page_and_an_edition() -> None:
    bad = [
        c
        for c in LOOKUPS + QUESTIONS + CHINESE_IN_ENGLISH + PASTED_ERRORS + CORPUS_QUESTIONS
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


# --- the demand corpus (demand/, docverify.contract.demand) ----------------------------------


def test_the_pasted_errors_are_every_in_scope_corpus_error_that_a_page_quotes() -> None:
    """One case per in-scope error of demand/errors.yaml whose key a page quotes (`source:`
    its id), its query the message as the reader pasted it (on one line)."""
    errors = {e.id: e for e in demand.load()}
    _one_case_each([c.source for c in PASTED_ERRORS if c.source], set(demand.coverage().quoted))
    # A search box is one line: the message's line breaks become spaces.
    changed = [
        c.source
        for c in PASTED_ERRORS
        if c.source and demand.squash(c.query) != demand.squash(errors[c.source].message)
    ]
    assert not changed, f"a case's query is not its corpus message: {changed}"


def _one_case_each(sources: list[str], expected: set[str]) -> None:
    """The cases' corpus ids are `expected` (in scope, answered by a page), each once."""
    assert len(sources) == len(set(sources)), "a corpus entry is a case twice"
    assert set(sources) == expected, (
        f"corpus entries without a case: {sorted(expected - set(sources))}; "
        f"cases of entries out of scope or answered by no page: {sorted(set(sources) - expected)}"
    )


def test_the_corpus_questions_are_every_in_scope_corpus_question() -> None:
    """One case per in-scope question of demand/questions.yaml (`source:` its id), asked as
    the reader asked it, in the edition of its language."""
    questions = {q.id: q for q in demand.load_questions()}
    in_scope = {q.id for q in questions.values() if q.in_scope}
    _one_case_each([c.source for c in CORPUS_QUESTIONS], in_scope)
    changed = [
        c.source
        for c in CORPUS_QUESTIONS
        if (c.query, c.lang) != (questions[c.source].question, questions[c.source].lang)
    ]
    assert not changed, f"a case is not its corpus question, in its language: {changed}"


def _also_problems(case: Case) -> list[str]:
    """What is wrong with the case's `also` answers: each names a page (both editions) other
    than the case's, and a heading of it (`page/#entry`, required where the case has an
    entry). A pasted error's `also` page must quote the message: a key of the demand corpus
    (the stable part of a message, docverify.contract.demand) that the query holds."""
    problems = []
    keys = [demand.squash(e.key) for e in demand.load() if e.in_scope]
    held = [k for k in keys if k in demand.squash(case.query)]
    for item in case.also:
        page, _, entry = item.partition("#")
        file = _page_file(page)
        if not (DOCS_DIR / file).is_file() or page.strip("/") == case.page.strip("/"):
            problems.append(f"{item}: no page, or the case's own")
            continue
        for lang in languages.LANGUAGES:
            text = (DOCS_DIR / languages.twin(file, lang)).read_text(encoding="utf-8")
            if entry and entry not in translations.anchors(text):
                problems.append(f"{item}: #{entry} is no heading of {languages.twin(file, lang)}")
        if case.entry and not entry:
            problems.append(f"{item}: names no heading (the case has an entry)")
        shown = demand.shown_text(DOCS_DIR / file)
        if case.entry and not any(key in shown for key in held):
            problems.append(f"{item}: {file} quotes no corpus key that the query holds")
        if case.query in {c.query for c in LOOKUPS} and case.query not in _terms(DOCS_DIR / file):
            problems.append(f"{item}: {file} lists no 中文 term {case.query!r}")
    return problems


def _terms(page) -> list[str]:
    """The page's 中文 search terms (`*中文: a · b*` under its title)."""
    found = re.search(r"^\*中文: (.+)\*$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return [t.strip() for t in found[1].split("·")] if found else []


# A lookup's `also` page lists the looked-up term among its own 中文 terms (a term several
# pages share, 共享内存, finds each of them).
@pytest.mark.parametrize(
    "case",
    [c for c in LOOKUPS + QUESTIONS + PASTED_ERRORS + CORPUS_QUESTIONS if c.also],
    ids=lambda c: c.query,
)
def test_an_also_answer_is_a_heading_of_a_page_that_quotes_the_message(case: Case) -> None:
    problems = _also_problems(case)
    assert not problems, f"{case.query!r}: " + "; ".join(problems)


def test_an_also_answer_that_does_not_quote_the_message_is_refused() -> None:
    pasted = "RuntimeError: received 0 items of ancdata"
    quoting = Case(
        pasted,
        "errors/data_loading_errors/",
        "en",
        "x",
        None,
        ("data/shared_memory/#the-two-sharing-strategies",),
    )
    assert _also_problems(quoting) == []
    elsewhere = Case(
        pasted,
        "errors/data_loading_errors/",
        "en",
        "x",
        None,
        ("losses/binary/#the-classic-mistake-a-sigmoid-applied-twice",),
    )
    assert "quotes no corpus key" in "".join(_also_problems(elsewhere))
    no_heading = Case(
        pasted, "errors/data_loading_errors/", "en", "x", None, ("data/shared_memory/#nowhere",)
    )
    assert "is no heading" in "".join(_also_problems(no_heading))
    shared = next(c for c in LOOKUPS if c.also)
    assert _also_problems(shared) == []
    wrong_term = Case(shared.query, shared.page, "en", also=("losses/binary/",))
    assert "lists no 中文 term" in "".join(_also_problems(wrong_term))
