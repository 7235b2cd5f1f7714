"""axe-core on every page type, in both editions and both colour schemes: no serious violations.

The same page types that scripts/lighthouse_accessibility.py scores with
Lighthouse (docverify.built_site.PAGE_TYPES), plus the search dialog open with
results; in dark mode, the page types with code and figures. Violations of impact "serious" or "critical" fail, listed with the
element and axe's summary; "moderate" and "minor" ones are not counted.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docverify.built_site import PAGE_TYPES

pytestmark = [
    pytest.mark.skipif(
        not Path(shutil.which("chromium") or "/usr/bin/chromium").exists(),
        reason="chromium is not installed (`apt-get install chromium`; .ci/run installs it)",
    ),
    pytest.mark.xdist_group("browser"),
]
SERIOUS = {"serious", "critical"}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SHOWN_FOR = "(q) => document.getElementById('site-search').dataset.query === q"


def serious_violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    # The WCAG 2.1 A and AA rules (what Lighthouse's audit draws on), not axe's best practices.
    options = {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": WCAG}}
    results = Axe().run(page, options=options).response
    return [
        f"{v['id']} ({v['impact']}): {node['target']}: {node.get('failureSummary', '')[:200]}"
        for v in results["violations"]
        if v["impact"] in SERIOUS
        for node in v["nodes"]
    ]


# Dark mode changes the colours of text, links and highlighted code: checked on the page
# types that show code and figures (the others share their colours with these).
DARK_PAGE_TYPES = [(kind, path) for kind, path in PAGE_TYPES if "code" in kind or "figures" in kind]


@pytest.mark.parametrize(
    ("scheme", "page_types"),
    [("light", PAGE_TYPES), ("dark", DARK_PAGE_TYPES)],
    ids=["light", "dark"],
)
def test_no_page_type_has_serious_violations(browser, site_url: str, scheme, page_types) -> None:
    page = browser.new_page(color_scheme=scheme)
    found = []
    try:
        for _, path in page_types:
            for prefix in ("", "zh/"):
                page.goto(f"{site_url}/{prefix}{path}")
                found += [f"/{prefix}{path}: {v}" for v in serious_violations(page)]
        for prefix, query in (("", "loss is nan"), ("zh/", "张量拼接")):
            page.goto(f"{site_url}/{prefix}")
            page.keyboard.press("/")
            page.keyboard.type(query)
            page.wait_for_function(SHOWN_FOR, arg=query)
            found += [f"/{prefix} search dialog: {v}" for v in serious_violations(page)]
    finally:
        page.close()
    assert not found, "\n".join(found)


def test_a_serious_violation_is_found(browser, site_url: str) -> None:
    # The check can fail: grey text on white (2.3:1) in a page is reported.
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/")
        page.evaluate(
            "() => { const p = document.createElement('p'); p.textContent = 'low contrast';"
            " p.style.color = '#aaa'; p.style.background = '#fff';"
            " document.querySelector('article').append(p); }"
        )
        assert any(v.startswith("color-contrast (serious)") for v in serious_violations(page))
    finally:
        page.close()


def test_the_search_dialog_has_a_name_and_returns_focus(browser, site_url: str) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/zh/")
        page.keyboard.press("Control+k")
        dialog = page.get_by_role("dialog", name="查找")
        assert dialog.is_visible()
        assert page.evaluate("() => document.activeElement.id") == "site-search-input"
        page.keyboard.press("Escape")
        assert not dialog.is_visible()
    finally:
        page.close()
