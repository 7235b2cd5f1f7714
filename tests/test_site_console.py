"""Every page type, in both editions, loads without a console error or a failed request,
and requests nothing from another host.

Lighthouse's best-practices audit fails a page on any console error
(`errors-in-console`), and a failed request logs one: before the sitemaps beside
each page (docverify.site.sitemap_files), Material's language switcher requested
`sitemap.xml` beside each hreflang link and got a 404 on every page (and a
site built for another address than it is served at would request them
there). Here each page of docverify.site.built_site.PAGE_TYPES is opened in chromium
in both editions and waited on until its scripts' requests have settled.
"""

from __future__ import annotations

import time

from docverify.site.built_site import PAGE_TYPES

SETTLE_S = 0.1  # no request in flight for this long: the page's scripts are done
TIMEOUT_S = 15.0


def _problems_on_load(page, url: str, site: tuple[str, ...]) -> list[str]:
    """Console errors, uncaught exceptions, failed requests, 4xx/5xx responses and requests
    to an address not in `site` of one page load, until no request has been in flight for
    SETTLE_S."""
    problems: list[str] = []
    in_flight: set = set()

    def requested(request) -> None:
        in_flight.add(request)
        if not request.url.startswith(site):
            problems.append(f"another host: {request.url}")

    handlers = {
        "console": lambda m: m.type == "error" and problems.append(f"console: {m.text}"),
        "pageerror": lambda e: problems.append(f"exception: {e}"),
        "request": requested,
        "requestfinished": lambda r: in_flight.discard(r),  # noqa: PLW0108 (Playwright needs a function, not a builtin method)
        "requestfailed": lambda r: (
            in_flight.discard(r),
            problems.append(f"failed: {r.url} ({r.failure})"),
        ),
        "response": lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"),
    }
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        page.goto(url, wait_until="load")
        deadline = time.monotonic() + TIMEOUT_S
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            page.wait_for_timeout(50)  # lets the page's events reach the handlers
            if in_flight:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= SETTLE_S:
                break
        else:
            problems.append(f"requests still in flight after {TIMEOUT_S} s: {in_flight}")
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    return problems


def _site(browser, site_url: str) -> tuple[str, ...]:
    # The test server, and the address the site was built for (conftest.SiteBrowser routes
    # it to the test server).
    return (f"{site_url}/", browser.built_for)


def test_every_page_type_loads_cleanly_in_both_editions(browser, site_url: str) -> None:
    page = browser.new_page()
    found = []
    try:
        for _, path in PAGE_TYPES:
            for prefix in ("", "zh/"):
                url = f"{site_url}/{prefix}{path}"
                problems = _problems_on_load(page, url, _site(browser, site_url))
                found += [f"{prefix}{path}: {p}" for p in problems]
    finally:
        page.close()
    assert not found, "\n".join(found)


def test_a_missing_file_and_another_host_are_caught(browser, site_url: str) -> None:
    # The check itself: a missing page (a 404 and its console error), and the same site
    # taken for another host.
    page = browser.new_page()
    try:
        missing = _problems_on_load(page, f"{site_url}/no-such-page/", _site(browser, site_url))
        foreign = _problems_on_load(page, f"{site_url}/", ("http://127.0.0.1:1/",))
    finally:
        page.close()
    assert any("HTTP 404" in p for p in missing) and any("console" in p for p in missing)
    assert any(p.startswith("another host") for p in foreign)
