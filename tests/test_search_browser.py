"""Search as a reader uses it: real chromium, real built site, typed queries.

Builds the site, serves it on 127.0.0.1, and drives Debian's chromium with
Playwright (no browser download). Each case in search_cases.yaml must find its
page among the top 3 results. Also checks that no page load contacts any host
other than 127.0.0.1. On failure a screenshot is saved next to the report.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from docverify.paths import REPO_ROOT

CASES_FILE = Path(__file__).with_name("search_cases.yaml")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FAILURE_SHOTS = REPO_ROOT / ".reports" / "search-failures"
# Material's search box runs a search on keyup; `fill` sends none (and typing
# a long error message key by key would run one search per character), so we
# fill the box and press End once.
RESULTS_READY = """() => {
  const meta = document.querySelector('.md-search-result__meta');
  return meta && !/Initializing|Type to start/.test(meta.textContent);
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
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=REPO_ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return site


@pytest.fixture(scope="module")
def site_url(site_dir: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser_page(site_url: str):
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
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.requested = requested
        yield page
        browser.close()


def search(page, query: str) -> tuple[list[str], str]:
    box = page.locator("input.md-search__input")
    box.fill("")
    box.press("End")
    box.fill(query)  # one input event; the End key's keyup then runs one search
    box.press("End")
    page.wait_for_function(RESULTS_READY, timeout=5000)
    # One <li> per page (its sections are further links inside it): rank pages, not sections.
    items = page.locator("li.md-search-result__item")
    hrefs = items.evaluate_all(
        "els => els.map(e => e.querySelector('a.md-search-result__link').getAttribute('href'))"
    )
    meta = page.locator(".md-search-result__meta").text_content()
    return [h.split("?")[0].split("#")[0] for h in hrefs], meta


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
