"""Ask the site's search a query and print its results with their scores.

    make search Q="Timed out waiting 1800000ms for recv operation" [LANG=zh]
    .venv/bin/python scripts/search.py QUERY [QUERY ...] [--lang zh] [--site DIR]

Builds the site (docverify.site.built_site, as the browser tests do; --site DIR
serves a site already built there instead), serves it on 127.0.0.1, and asks
`window.siteSearch.search(query, {scores: true})` in Debian's chromium, driven by
Playwright: each result's rank, score, page and the heading its link opens, as
the dialog ranks them. To see why a case of tests/search_cases.yaml misses, ask
its query here (the browser test's failure message says the same for its
ranks).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This checkout's docverify and its tests/ (the browser test's search driver).
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

import search_driver  # noqa: E402  (tests/search_driver.py)

from docverify.site.built_site import built_and_served, served  # noqa: E402


@contextmanager
def site(built: Path | None) -> Iterator[str]:
    """The site's address: `built` served as it is, or this checkout built and served."""
    if built:
        with served(built) as url:
            yield url
        return
    with tempfile.TemporaryDirectory() as tmp, built_and_served(Path(tmp) / "site") as url:
        yield url


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("queries", nargs="+", metavar="QUERY")
    parser.add_argument("--lang", default="en", choices=["en", "zh"], help="the edition")
    parser.add_argument("--site", type=Path, help="a site built already (mkdocs build)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    engine = search_driver.SiteSearch()
    with site(args.site) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        engine.open(page, url, args.lang)
        found = engine.results_all(page, url, args.queries)
        browser.close()
    for query, results in zip(args.queries, found, strict=True):
        print(f"[{args.lang}] {query!r}: {len(results)} results")
        for rank, r in enumerate(results, 1):
            link = f"{r.path}/" + (f"#{r.anchor}" if r.anchor else "")
            heading = f"  ({r.heading})" if r.heading else ""
            print(f"{rank:3}. {r.score:8.2f}  {link}{heading}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
