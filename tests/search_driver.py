"""Search engines driven in a real browser: the site's own (MiniSearch), Material's and Pagefind.

Each takes a Playwright page already open on the edition to search (English at
/, 简体中文 at /zh/) and returns the result pages in rank order, as
site-relative paths (`zh/losses/binary/`). tests/test_search_browser.py holds
the site's search to its targets; scripts/compare_search.py runs the same
cases through all three to compare them.

The site's search also gives each result's score and the heading its link
leads to (`site_results`); `explain` says, for a case that missed, which pages
outranked its page and by how much (the tests' failure messages, and
scripts/search.py: `make search Q=...`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote

from docverify import yaml_data

CASES_FILE = Path(__file__).with_name("search_cases.yaml")
# Seconds to wait for one query's results (an engine answers in milliseconds;
# a loaded 2-core machine running the suite on both cores is slower).
RESULTS_TIMEOUT_MS = 15_000


@dataclass(frozen=True)
class Case:
    query: str
    page: str  # the English page's site path, e.g. losses/binary/
    lang: str  # the edition it is searched in
    entry: str | None = None  # the id of the heading its first result must link to
    source: str | None = None  # its demand corpus id (demand/errors.yaml, questions.yaml), if any
    # Other answers, accepted as its page and entry are: `page/#entry` items (a page, and
    # the heading its link must open where the case has an entry).
    also: tuple[str, ...] = ()

    @property
    def expected(self) -> str:
        """The page's path in its edition: `zh/losses/binary` for a Chinese case."""
        return in_edition(self.page, self.lang)

    @property
    def answers(self) -> list[tuple[str, str | None]]:
        """Each accepted (path in its edition, heading id): its page and entry first, then
        each `also` item."""
        found = [(self.expected, self.entry)]
        for item in self.also:
            page, _, entry = item.partition("#")
            found.append((in_edition(page, self.lang), entry or None))
        return found


def in_edition(page: str, lang: str) -> str:
    """A page's path in an edition: `losses/binary/` in zh -> `zh/losses/binary`."""
    page = page.strip("/")
    return page if lang == "en" else f"{lang}/{page}".rstrip("/")


def load_cases(kind: str, path: Path = CASES_FILE) -> list[Case]:
    """The cases of one kind (`lookups`, `questions`, ...), each in the edition its `lang`
    names (English if none), with its `entry`, `source` and `also` if it names them."""
    cases = yaml_data.read(path)[kind] or []
    return [
        Case(
            c["query"],
            c["page"],
            c.get("lang", "en"),
            c.get("entry"),
            c.get("source"),
            tuple(c.get("also") or ()),
        )
        for c in cases
    ]


def in_both_editions(cases: list[Case]) -> list[Case]:
    """Each case searched in the English and the Chinese edition: readers paste English
    error messages into both."""
    return [replace(c, lang=lang) for c in cases for lang in ("en", "zh")]


def edition_url(site_url: str, lang: str) -> str:
    return f"{site_url}/" if lang == "en" else f"{site_url}/{lang}/"


def site_path(href: str, site_url: str) -> str:
    """`http://127.0.0.1:8000/zh/losses/binary/#x` or `/zh/losses/binary/` -> `zh/losses/binary`."""
    return href.removeprefix(site_url).split("#")[0].split("?")[0].strip("/")


def anchor(href: str) -> str:
    """`.../errors/shape_errors/#expected-hidden0-size` -> `expected-hidden0-size` ("" if none)."""
    return unquote(href.partition("#")[2])


@dataclass(frozen=True)
class Result:
    """One result of the site's search: where its link leads, and the score it ranked by."""

    path: str  # the page's site path, `zh/errors/saving_errors`
    anchor: str  # the heading's id the link carries ("" for the top of the page)
    score: float
    heading: str | None  # that heading's text

    def __str__(self) -> str:
        return f"{self.path}{'#' + self.anchor if self.anchor else ''} ({self.score:.2f})"


def rank_of(case: Case, results: list[Result]) -> int | None:
    """The rank of the first result that is the case's page or one of its `also` pages
    (1 = first), None if none is there."""
    pages = {path for path, _ in case.answers}
    return next((i for i, r in enumerate(results, 1) if r.path in pages), None)


def opens_an_answer(case: Case, result: Result) -> bool:
    """The result is the case's page or an `also` page, and its link opens the heading
    that answer names (any heading where it names none)."""
    return any(
        result.path == path and (entry is None or result.anchor == entry)
        for path, entry in case.answers
    )


def first(case: Case, results: list[Result]) -> bool:
    """The first result answers the case, opening its entry where it has one."""
    return bool(results) and opens_an_answer(case, results[0])


def explain(case: Case, results: list[Result]) -> str:
    """What a case found: its page's rank and score, and the pages ranked above it with
    theirs (the first three if its page is not among the results); where its page is first
    but its link opens another heading than the case's entry, that heading."""
    rank = rank_of(case, results)
    said = f"[{case.lang}] {case.query!r}: expected {case.expected}"
    said += f"#{case.entry}" if case.entry else ""
    said += "".join(
        f" or {path}" + (f"#{entry}" if entry else "") for path, entry in case.answers[1:]
    )
    if rank is None:
        top = "; ".join(str(r) for r in results[:3]) or "nothing"
        return f"{said}, not in the {len(results)} results; ranked first: {top}"
    found = results[rank - 1]
    said += f", found {found}"
    if rank == 1:
        if opens_an_answer(case, found):
            return said
        return f"{said}, whose link opens another heading ({found.heading!r})"
    return f"{said} at rank {rank}; ranked above it: " + "; ".join(
        str(r) for r in results[: rank - 1]
    )


# --- the site's search (overrides/assets/javascripts/site-search.js) -----------------------------


class SiteSearch:
    name = "this site's search (MiniSearch)"

    def open(self, page, site_url: str, lang: str) -> None:
        page.goto(edition_url(site_url, lang))

    def search(self, page, site_url: str, query: str) -> list[str]:
        return self.search_all(page, site_url, [query])[0]

    def search_all(self, page, site_url: str, queries: list[str]) -> list[list[str]]:
        """Many queries in one call into the page (one round trip instead of one each)."""
        return [[r.path for r in found] for found in self.results_all(page, site_url, queries)]

    def results_all(self, page, site_url: str, queries: list[str]) -> list[list[Result]]:
        """Each query's results with their scores and the headings their links lead to."""
        found = page.evaluate(
            "(queries) => Promise.all(queries.map((q) => window.siteSearch.search(q, "
            "{scores: true})))",
            queries,
        )
        return [
            [
                Result(site_path(r["url"], site_url), anchor(r["url"]), r["score"], r["heading"])
                for r in results
            ]
            for results in found
        ]


# --- Pagefind -------------------------------------------------------------------------------

# Pagefind's own search API, the one its dialog calls, loaded from the site's
# bundle; it picks the index of the page's language (<html lang>).
PAGEFIND_SEARCH = """async ([bundle, query]) => {
  window.__pagefind = window.__pagefind || await import(bundle + "pagefind.js");
  const found = await window.__pagefind.search(query);
  const top = await Promise.all(found.results.slice(0, 10).map((r) => r.data()));
  return top.map((d) => d.url);
}"""


class Pagefind:
    name = "Pagefind"

    def open(self, page, site_url: str, lang: str) -> None:
        page.goto(edition_url(site_url, lang))

    def search(self, page, site_url: str, query: str) -> list[str]:
        urls = page.evaluate(PAGEFIND_SEARCH, [f"{site_url}/pagefind/", query])
        return [site_path(u, site_url) for u in urls]


# --- Material's search ----------------------------------------------------------------------

# Runs in the page before Material's own scripts. Material's search talks to a
# web worker: it posts {type: 2 (QUERY), data: the query} and the worker posts
# back {type: 3 (RESULT), data: {items}} for each query, in order (the message
# protocol of Material's search worker, src/.../integrations/search/worker).
# The results are rendered synchronously in the message handler that follows
# ours, so a check that runs after `results` counted a reply also sees its DOM.
MATERIAL_SEARCH_LOG = """(() => {
  const log = (window.__searchLog = { queries: [], results: 0 });
  const RealWorker = window.Worker;
  window.Worker = class extends RealWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        if (ev.data && ev.data.type === 3) log.results += 1;
      });
    }
    postMessage(message, ...rest) {
      if (message && message.type === 2) log.queries.push(message.data);
      return super.postMessage(message, ...rest);
    }
  };
})();"""

# Ready when the box holds `query`, the last query sent to the worker is
# `query`, and every query sent has been answered: the list shows this query's
# results (an earlier query's late answer can no longer arrive after them).
MATERIAL_RESULTS_FOR_QUERY = """(query) => {
  const log = window.__searchLog;
  const box = document.querySelector("input.md-search__input");
  return Boolean(log && box && box.value === query && log.queries.length > 0
    && log.queries[log.queries.length - 1] === query
    && log.results === log.queries.length);
}"""


class MaterialSearch:
    name = "Material search"

    def open(self, page, site_url: str, lang: str) -> None:
        page.add_init_script(MATERIAL_SEARCH_LOG)
        page.goto(edition_url(site_url, lang))
        page.keyboard.press("/")  # opens Material's search box

    def search(self, page, site_url: str, query: str) -> list[str]:
        # Material's search box runs a search on keyup; `fill` sends none, so we
        # fill the box and press End once: exactly one search, for `query`.
        box = page.locator("input.md-search__input")
        box.fill(query)
        box.press("End")
        page.wait_for_function(MATERIAL_RESULTS_FOR_QUERY, arg=query, timeout=RESULTS_TIMEOUT_MS)
        # One <li> per page (its sections are further links inside it): rank pages.
        hrefs = page.locator("li.md-search-result__item").evaluate_all(
            "els => els.map(e => e.querySelector('a.md-search-result__link').href)"
        )
        return [site_path(h, site_url) for h in hrefs]


def _per_edition(engine, browser, site_url: str, cases: list[Case], search_all) -> list:
    """search_all(page, queries) of the cases of each edition, on a page open on it; the
    results in the order of the cases."""
    found: dict[int, object] = {}
    for lang in sorted({c.lang for c in cases}):
        page = browser.new_page()
        try:
            engine.open(page, site_url, lang)
            mine = [i for i, case in enumerate(cases) if case.lang == lang]
            results = search_all(page, [cases[i].query for i in mine])
            found.update(zip(mine, results, strict=True))
        finally:
            page.close()
    return [found[i] for i in range(len(cases))]


def ranks(engine, browser, site_url: str, cases: list[Case]) -> list[int | None]:
    """Each case's rank of its expected page (1 = first), or None where it is not in the list."""

    def search_all(page, queries: list[str]) -> list[list[str]]:
        if hasattr(engine, "search_all"):
            return engine.search_all(page, site_url, queries)
        return [engine.search(page, site_url, q) for q in queries]

    found = _per_edition(engine, browser, site_url, cases, search_all)
    return [
        paths.index(c.expected) + 1 if c.expected in paths else None
        for c, paths in zip(cases, found, strict=True)
    ]


def site_results(browser, site_url: str, cases: list[Case]) -> list[list[Result]]:
    """Each case's results from the site's search, with their scores, in its edition."""
    engine = SiteSearch()
    return _per_edition(
        engine, browser, site_url, cases, lambda page, q: engine.results_all(page, site_url, q)
    )
