"""Search as a reader uses it: real chromium, real built site, typed queries.

Builds the site, serves it on 127.0.0.1, and drives Debian's chromium with
Playwright (no browser download). Each case in search_cases.yaml must find its
page among the top 3 results. Also checks that no page load contacts any host
other than 127.0.0.1. On failure a screenshot is saved next to the report.

Every read of the results belongs to the query just typed: the page counts
the queries Material's search sends to its web worker and the results that
come back (SEARCH_LOG_SCRIPT), and `search` waits until the last query sent
is its own and every query sent has been answered.
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]  # the checkout under test
CASES_FILE = Path(__file__).with_name("search_cases.yaml")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FAILURE_SHOTS = ROOT / ".reports" / "search-failures"
# Seconds to wait for one query's results (the worker answers in milliseconds;
# a loaded 2-core machine running the suite on both cores is slower).
RESULTS_TIMEOUT_MS = 15_000

# Runs in the page before Material's own scripts. Material's search talks to a
# web worker: it posts {type: 2 (QUERY), data: the query} and the worker posts
# back {type: 3 (RESULT), data: {items}} for each query, in order (the message
# protocol of Material's search worker, src/.../integrations/search/worker).
# The results are rendered synchronously in the message handler that follows
# ours, so a check that runs after `results` counted a reply also sees its DOM.
# `delayMs` holds every query back before it reaches the worker: a slow worker,
# for the test that shows stale results are not read.
SEARCH_LOG_SCRIPT = """(delayMs => {
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
      if (!message || message.type !== 2) return super.postMessage(message, ...rest);
      log.queries.push(message.data);
      if (delayMs > 0) setTimeout(() => super.postMessage(message, ...rest), delayMs);
      else super.postMessage(message, ...rest);
    }
  };
})(%d);"""

# Ready when the box holds `query`, the last query sent to the worker is
# `query`, and every query sent has been answered: the list shows this query's
# results (an earlier query's late answer can no longer arrive after them).
RESULTS_FOR_QUERY = """(query) => {
  const log = window.__searchLog;
  const box = document.querySelector("input.md-search__input");
  return Boolean(log && box && box.value === query && log.queries.length > 0
    && log.queries[log.queries.length - 1] === query
    && log.results === log.queries.length);
}"""

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


pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="chromium is not installed (`apt-get install chromium`; .ci/run installs it)",
    ),
    pytest.mark.xdist_group("browser"),
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_dir(built_site: Path) -> Path:
    return built_site  # one strict build per worker, shared with tests/test_site_proof.py


@pytest.fixture(scope="module")
def site_url(site_dir: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(site_url: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


def new_search_page(browser, worker_delay_ms: int = 0):
    page = browser.new_page()
    page.add_init_script(SEARCH_LOG_SCRIPT % worker_delay_ms)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.requested = requested
    return page


@pytest.fixture(scope="module")
def browser_page(browser):
    page = new_search_page(browser)
    yield page
    page.close()


def type_query(page, query: str) -> None:
    # Material's search box runs a search on keyup; `fill` sends none (and typing
    # a long error message key by key would run one search per character), so we
    # fill the box and press End once: exactly one search, for `query`.
    box = page.locator("input.md-search__input")
    box.fill(query)
    box.press("End")


def shown_results(page) -> tuple[list[str], str]:
    """The result list as it is now: page links in rank order, and the meta line."""
    # One <li> per page (its sections are further links inside it): rank pages, not sections.
    items = page.locator("li.md-search-result__item")
    hrefs = items.evaluate_all(
        "els => els.map(e => e.querySelector('a.md-search-result__link').getAttribute('href'))"
    )
    meta = page.locator(".md-search-result__meta").text_content()
    return [h.split("?")[0].split("#")[0] for h in hrefs], meta


def search(page, query: str) -> tuple[list[str], str]:
    """Type `query` and return the results Material shows for it (never an earlier query's)."""
    type_query(page, query)
    page.wait_for_function(RESULTS_FOR_QUERY, arg=query, timeout=RESULTS_TIMEOUT_MS)
    return shown_results(page)


def _page_path(href: str, site_url: str) -> str:
    return href.removeprefix(site_url).strip("/")


def test_queries_find_their_page_in_the_top_three(browser_page, site_url: str) -> None:
    cases = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    assert len(cases) >= 30, "keep at least 30 query cases"
    browser_page.goto(f"{site_url}/")
    browser_page.keyboard.press("/")  # opens Material's search box
    misses = []
    for case in cases:
        hrefs, meta = search(browser_page, case["query"])
        top = [_page_path(h, site_url) for h in hrefs[:3]]
        if case["page"].strip("/") not in top:
            misses.append(f"{case['query']!r}: expected {case['page']}, got {top} ({meta})")
    if misses:
        FAILURE_SHOTS.mkdir(parents=True, exist_ok=True)
        shot = FAILURE_SHOTS / "last-miss.png"
        browser_page.screenshot(path=str(shot))
        pytest.fail(
            f"{len(misses)}/{len(cases)} queries missed (screenshot: {shot}):\n" + "\n".join(misses)
        )


# What the search test waited for before: any settled meta line, whichever query it belongs to.
ANY_RESULTS = """() => {
  const meta = document.querySelector('.md-search-result__meta');
  return meta && !/Initializing|Type to start/.test(meta.textContent);
}"""


def test_a_slow_search_worker_never_shows_the_previous_querys_results(browser, site_url) -> None:
    # Every query reaches the worker 0.75 s late. Waiting for "any results" then
    # reads the previous query's list (the flake of issue 11, made certain);
    # `search` waits for the results of the query it typed.
    cases = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    first = cases[0]
    second = next(c for c in cases if c["page"] != first["page"])
    page = new_search_page(browser, worker_delay_ms=750)
    try:
        page.goto(f"{site_url}/")
        page.keyboard.press("/")
        first_hrefs, _ = search(page, first["query"])
        assert first["page"].strip("/") in [_page_path(h, site_url) for h in first_hrefs[:3]]

        type_query(page, second["query"])
        page.wait_for_function(ANY_RESULTS, timeout=RESULTS_TIMEOUT_MS)
        assert shown_results(page)[0] == first_hrefs  # stale: the old wait was not enough

        hrefs, meta = search(page, second["query"])
        top = [_page_path(h, site_url) for h in hrefs[:3]]
        assert second["page"].strip("/") in top, f"{second['query']!r}: got {top} ({meta})"
        assert hrefs != first_hrefs
    finally:
        page.close()


def test_no_built_file_references_another_host(site_dir: Path) -> None:
    # Every page, statically: scripts, styles, images, frames and CSS imports.
    foreign = {
        f"{path.relative_to(site_dir)}: {url}"
        for path in [*site_dir.rglob("*.html"), *site_dir.rglob("*.css")]
        for url in external_resources(path.read_text(encoding="utf-8", errors="replace"))
    }
    assert not foreign, "resources loaded from other hosts:\n" + "\n".join(sorted(foreign))


def test_pages_load_nothing_from_other_hosts(browser_page, site_url: str, site_dir: Path) -> None:
    # In the browser, what scripts request at run time too: the home page, every
    # section's index, and every page that shows a generated figure.
    sections = sorted(p.parent.name for p in site_dir.glob("*/index.html"))
    with_figures = sorted(
        html.parent.relative_to(site_dir).as_posix()
        for html in site_dir.rglob("*/index.html")
        if "assets/generated/" in html.read_text(encoding="utf-8")
    )
    pages = ["", *(f"{p}/" for p in sections + with_figures[:4])]
    browser_page.requested.clear()
    for page in pages:
        browser_page.goto(f"{site_url}/{page}", wait_until="load")
    foreign = sorted({u for u in browser_page.requested if not u.startswith(site_url)})
    assert not foreign, f"page loads contacted other hosts: {foreign}"
    assert len(browser_page.requested) > len(pages)  # the pages and their assets really loaded
