"""Search as a reader uses it: real chromium, the real built site, both editions.

Builds the site, serves it on 127.0.0.1, and drives Debian's chromium with
Playwright (no browser download). The site's search (site-search.js) is asked
through `window.siteSearch.search`, what its dialog shows (one test types into
the dialog and compares); tests/search_driver.py holds that code, which
scripts/compare_search.py also runs against Material's search and Pagefind.

- lookups (API names, error messages, terms of the notes): each lists its page
  in the top 3;
- pasted error messages (the demand corpus's, and others not copied from the
  page), in each edition: every one lists its page in the top 3, and at least
  90% have a first result that opens their entry (`entry:`, the heading's id),
  with the heading in view once opened;
- the demand corpus's questions, each in the edition of its language: at least
  97% list their page in the top 3 and 90% at rank 1 (`CORPUS_TARGETS`);
- held-out questions, per edition: at least 97% list their page in the top 3
  and at least 88% at rank 1; Chinese typed into the English edition: at least
  93% in the top 3 and 85% at rank 1 (`TARGETS`, which says why);

A case's `also:` names other pages (and headings) that answer it as well: each
counts as its page does (tests/test_search_cases.py checks what each one is).
- no built file references another host, and no search contacts one (page loads:
  tests/test_site_console.py).

A case that misses says why (search_driver.explain): its page's rank and score,
and each page ranked above it with its score. `make search Q="..."` shows the
whole list for any query.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from search_driver import (
    RESULTS_TIMEOUT_MS,
    Case,
    Result,
    anchor,
    edition_url,
    explain,
    first,
    in_both_editions,
    load_cases,
    rank_of,
    site_results,
)

ROOT = Path(__file__).resolve().parents[1]  # the checkout under test
FAILURE_SHOTS = ROOT / ".reports" / "search-failures"
# (cases, edition) -> (top 3, rank 1) targets for the held-out sets. Each leaves room for
# about two cases below today's results (questions: English 69/75 at rank 1, Chinese
# 70/77, all in the top 3; Chinese in English: 30/32, all): a new page may honestly
# answer a held-out question as well as the page its case names, and take rank 1 or a
# place in the top 3 from it without failing the suite. The held-out sets measure the
# engine, so the way back above a target is never a page written towards a question;
# a drop past the room is the engine's to answer, and the failure message names the
# pages that outrank each case. (At 92% with 69/75 and 70/77, one such page failed
# the suite.) Lookups have no room: their words are the page's own. A page written later
# that answers a held-out question as fully as its own page (models/train_eval for "why does
# my model give different results in eval mode") goes into the case's `also`, after reading
# both pages: the question and the page stay as they are (2026-12-07: three English and five
# Chinese questions, after the seven topic pages; one more English one after the census fixes,
# tensors/indexing's take_along_dim for "the largest value and its index along a dimension").
TARGETS = {
    ("questions", "en"): (0.97, 0.88),
    ("questions", "zh"): (0.97, 0.88),
    ("chinese_in_english", "en"): (0.93, 0.85),
}
# (cases) -> (top 3, rank 1) per edition for what readers actually bring (the demand
# corpus, demand/): every pasted error lists its page (or an `also` page) in the top 3,
# and 90% open their entry (or an `also` heading) with the first result; 97% of the
# corpus's questions list their page in the top 3, 90% at rank 1. Where an error has
# an answer on two pages, or a question a better one on another page, the case says so
# (`also:`); the rest of the misses are listed by the failure message.
CORPUS_TARGETS = {
    "pasted_errors": (1.0, 0.90),
    "corpus_questions": (0.97, 0.90),
}
# Where a target is not met yet, and what blocks it: the test is
# expected to fail, strictly, so that it fails once the target is met and the mark comes
# off. What blocks each is a page: an answer only in a short box, or none. None now: the
# English corpus questions met theirs on 2026-12-07 (83 of 92 at rank 1, the target
# exactly, and all 92 in the top 3) once compile answered training mode against eval mode.
SHORT_OF_TARGET: dict[tuple[str, str], str] = {}


def _editions(kind: str) -> list:
    """Both editions, each expected to fail where SHORT_OF_TARGET says why."""
    return [
        pytest.param(
            lang,
            marks=[pytest.mark.xfail(strict=True, reason=SHORT_OF_TARGET[kind, lang])]
            if (kind, lang) in SHORT_OF_TARGET
            else [],
        )
        for lang in ("en", "zh")
    ]


# Resources a page loads: src= of scripts, images, frames; href= of stylesheet,
# icon and preload links (not rel="canonical", which is only an address); CSS url().
_SRC = re.compile(r"<(?:script|img|iframe|source|video|audio)\b[^>]*?\bsrc=[\"']([^\"']+)")
_LINK = re.compile(r"<link\b[^>]*>")
_CSS_URL = re.compile(r"url\([\"']?([^)\"']+)")
_LOADING_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest"}


def external_resources(text: str) -> list[str]:
    urls = _SRC.findall(text) + _CSS_URL.findall(text)
    for tag in _LINK.findall(text):
        rel = re.search(r"rel=[\"']([^\"']+)", tag)
        href = re.search(r"href=[\"']([^\"']+)", tag)
        if rel and href and set(rel.group(1).split()) & _LOADING_RELS:
            urls.append(href.group(1))
    return [u for u in urls if re.match(r"(?:https?:)?//", u)]


# Tests that need chromium skip, saying why, where it is missing (the `browser` fixture).


def _misses(cases: list[Case], found: list[list[Result]], within: int) -> list[str]:
    """What each case that did not list its page within `within` found instead."""
    return [
        explain(case, results)
        for case, results in zip(cases, found, strict=True)
        if (rank := rank_of(case, results)) is None or rank > within
    ]


def test_lookups_find_their_page_in_the_top_three(browser, site_url: str) -> None:
    cases = load_cases("lookups")
    assert len(cases) >= 30, "keep at least 30 lookups"
    misses = _misses(cases, site_results(browser, site_url, cases), within=3)
    assert not misses, f"{len(misses)}/{len(cases)} lookups missed:\n" + "\n".join(misses)


def _corpus_report(kind: str, lang: str, cases: list[Case], found: list[list[Result]]) -> str:
    """The share at rank 1 (for a case with an entry: a first result that opens it) and in
    the top 3 against CORPUS_TARGETS, and each case not first, said why."""
    top3_target, rank1_target = CORPUS_TARGETS[kind]
    firsts = [first(c, results) for c, results in zip(cases, found, strict=True)]
    ranked = [rank_of(c, results) for c, results in zip(cases, found, strict=True)]
    top3 = sum(r is not None and r <= 3 for r in ranked) / len(cases)
    rank1 = sum(firsts) / len(cases)
    report = (
        f"{kind} [{lang}]: {len(cases)} cases, top 3 {top3:.1%} (target {top3_target:.0%}), "
        f"rank 1 {rank1:.1%} (target {rank1_target:.0%}); not first:\n"
        + "\n".join(
            explain(c, results)
            for c, results, hit in zip(cases, found, firsts, strict=True)
            if not hit
        )
    )
    return report if top3 < top3_target or rank1 < rank1_target else ""


@pytest.mark.parametrize("lang", _editions("pasted_errors"))
def test_pasted_errors_find_their_entry_first_in_both_editions(
    browser, site_url: str, lang: str
) -> None:
    cases = [c for c in in_both_editions(load_cases("pasted_errors")) if c.lang == lang]
    assert all(c.entry for c in cases), "a pasted error without its `entry:`"
    found = site_results(browser, site_url, cases)
    report = _corpus_report("pasted_errors", lang, cases, found)
    assert not report, report


@pytest.mark.parametrize("lang", _editions("corpus_questions"))
def test_corpus_questions_find_their_page(browser, site_url: str, lang: str) -> None:
    cases = [c for c in load_cases("corpus_questions") if c.lang == lang]
    found = site_results(browser, site_url, cases)
    report = _corpus_report("corpus_questions", lang, cases, found)
    assert not report, report


@pytest.mark.parametrize(("kind", "lang"), list(TARGETS))
def test_held_out_questions_meet_the_targets(browser, site_url: str, kind: str, lang: str):
    cases = [c for c in load_cases(kind) if c.lang == lang]
    found = site_results(browser, site_url, cases)
    ranked = [rank_of(c, results) for c, results in zip(cases, found, strict=True)]
    top3 = sum(r is not None and r <= 3 for r in ranked) / len(cases)
    rank1 = sum(r == 1 for r in ranked) / len(cases)
    top3_target, rank1_target = TARGETS[kind, lang]
    report = (
        f"{kind} [{lang}]: {len(cases)} questions, top 3 {top3:.1%} (target {top3_target:.0%}), "
        f"rank 1 {rank1:.1%} (target {rank1_target:.0%}); not at rank 1:\n"
        + "\n".join(_misses(cases, found, within=1))
    )
    assert top3 >= top3_target and rank1 >= rank1_target, report


# What the dialog shows once it has rendered the results of `query`.
SHOWN_FOR = """(query) => {
  const dialog = document.getElementById("site-search");
  return dialog.open && dialog.dataset.query === query;
}"""


@pytest.mark.parametrize(
    ("lang", "query"),
    [("en", "why does my loss go nan with BCELoss"), ("zh", "怎么把张量拼接起来")],
)
def test_the_dialog_shows_what_the_search_ranks(browser, site_url: str, lang: str, query: str):
    page = browser.new_page()
    try:
        page.goto(edition_url(site_url, lang))
        page.keyboard.press("Control+k")  # opens the dialog (so does "/"), focus in its box
        dialog = page.get_by_role("dialog", name={"en": "Search", "zh": "查找"}[lang])
        assert dialog.is_visible()  # a dialog with an accessible name, in the page's language
        page.keyboard.type(query)
        page.wait_for_function(SHOWN_FOR, arg=query, timeout=RESULTS_TIMEOUT_MS)
        shown = page.locator("#site-search-results a").evaluate_all("els => els.map(e => e.href)")
        ranked = page.evaluate("(q) => window.siteSearch.search(q)", query)
        assert shown == ranked and len(shown) > 0
        status = page.locator("#site-search-status").text_content()
        assert str(len(shown)) in status  # announced to screen readers (role=status)
        page.keyboard.press("Escape")  # closes it, and the focus goes back to the button
        assert not dialog.is_visible()
        focused = "() => document.activeElement.getAttribute('aria-controls') === 'site-search'"
        page.wait_for_function(focused, timeout=RESULTS_TIMEOUT_MS)
        page.keyboard.press("/")  # opens it again, as it was
        page.keyboard.press("Enter")  # Enter opens the first result
        page.wait_for_url(ranked[0])
    except Exception:
        FAILURE_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(FAILURE_SHOTS / f"dialog-{lang}.png"))
        raise
    finally:
        page.close()


def _far_entry() -> Case:
    """A pasted error whose entry lies far down its page: the last pasted case of the page
    with the most (errors/shape_errors, whose last entry is its sixteenth)."""
    cases = load_cases("pasted_errors")
    pages = [c.page for c in cases]
    busiest = max(pages, key=pages.count)
    return [c for c in cases if c.page == busiest][-1]


# Where the heading `id` is once the page has opened at it: below the fixed header, inside
# the window, and the page scrolled to get there.
WHERE = """(id) => {
  const heading = document.getElementById(id);
  if (!heading) return null;
  const box = heading.getBoundingClientRect();
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  return { top: box.top, bottom: box.bottom, header, height: innerHeight, scrolled: scrollY };
}"""
IN_VIEW = f"""(id) => {{
  const at = ({WHERE})(id);
  return Boolean(at && at.scrolled > 0 && at.top >= at.header - 1 && at.bottom <= at.height);
}}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pasted_errors_result_opens_at_its_entry(browser, site_url: str, lang: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    case = _far_entry()
    page = browser.new_page()
    try:
        page.goto(edition_url(site_url, lang))
        page.keyboard.press("/")
        page.locator("#site-search input[type=search]").fill(case.query)  # pasted: one input
        page.wait_for_function(SHOWN_FOR, arg=case.query, timeout=RESULTS_TIMEOUT_MS)
        first = page.locator("#site-search-results a").first.evaluate("a => a.href")
        assert anchor(first) == case.entry, f"{case.query!r}: the first result is {first}"
        page.keyboard.press("Enter")  # opens the first result
        page.wait_for_url(first)
        try:
            page.wait_for_function(IN_VIEW, arg=case.entry, timeout=RESULTS_TIMEOUT_MS)
        except PlaywrightTimeout:
            where = page.evaluate(WHERE, case.entry)
            pytest.fail(f"{first}: #{case.entry} is not in view below the header: {where}")
    except Exception:
        FAILURE_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(FAILURE_SHOTS / f"entry-{lang}.png"))
        raise
    finally:
        page.close()


def test_no_built_file_references_another_host(built_site: Path) -> None:
    site_dir = built_site
    # Every page, statically: scripts, styles, images, frames and CSS imports.
    foreign = {
        f"{path.relative_to(site_dir)}: {url}"
        for path in [*site_dir.rglob("*.html"), *site_dir.rglob("*.css")]
        for url in external_resources(path.read_text(encoding="utf-8", errors="replace"))
    }
    assert not foreign, "resources loaded from other hosts:\n" + "\n".join(sorted(foreign))


def test_searches_load_nothing_from_other_hosts(browser, site_url: str) -> None:
    # What the site's search requests at run time, in each edition (the first from the
    # English home page, the second from /zh/). Page loads: tests/test_site_console.py.
    page = browser.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        for path in ("", "zh/"):
            page.goto(f"{site_url}/{path}", wait_until="load")
            assert page.evaluate("() => window.siteSearch.search('tensor 张量')")
    finally:
        page.close()
    # The address the site was built for is routed to the test server (conftest.SiteBrowser).
    foreign = sorted({u for u in requested if not u.startswith((site_url, browser.built_for))})
    assert not foreign, f"searches contacted other hosts: {foreign}"
    searched = {u.rsplit("/", 1)[-1] for u in requested if "/search/" in u}
    assert searched == {"en.json", "zh.json"}  # both editions' searches really ran
