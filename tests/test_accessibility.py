"""axe-core on every page type, in both editions and both colour schemes: no serious violations.

The page types that scripts/lighthouse_accessibility.py scores with Lighthouse
(docverify.site.built_site.PAGE_TYPES), each in one edition (alternating), plus the
search dialog open with results; in dark mode, the page with figures (and code,
boxes and links). The colour of every token of highlighted code is measured
separately, in both schemes. Violations of impact "serious" or "critical" fail,
listed with the element and axe's summary; "moderate" and "minor" ones are not
counted.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from docverify.site.built_site import PAGE_TYPES

# Tests that need chromium skip, saying why, where it is missing (the `browser` fixture).
SERIOUS = {"serious", "critical"}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Highlighted code is thousands of coloured <span>s a page, the same few colours
# everywhere: axe skips it, and test_every_highlighted_token_is_readable checks each
# colour the site's code uses once, in both schemes.
WITHOUT_CODE = {"exclude": [[".highlight"]]}
# The header, tabs, navigation and footer are the same on every page of an edition:
# checked whole on the home page, then only the article and its table of contents.
ARTICLE_WITHOUT_CODE = {"include": [["article"], [".md-sidebar--secondary"]], **WITHOUT_CODE}
# The generated pages repeat one entry style hundreds of times (colour contrast is what
# costs): their first five entries are checked. Tags: a heading and a list per tag;
# Verification: a table row per page and snippet.
FIRST_ENTRIES = {
    "tags/": [["article h2:nth-of-type(n+6)"], ["article ul:nth-of-type(n+6)"]],
    "verification/": [["article tr:nth-child(n+6)"]],
}
SHOWN_FOR = "(q) => document.getElementById('site-search').dataset.query === q"


def serious_violations(page, context: dict | None = None) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    # The WCAG 2.1 A and AA rules (what Lighthouse's audit draws on), not axe's best practices.
    options = {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": WCAG}}
    results = Axe().run(page, context=context, options=options).response
    return [
        f"{v['id']} ({v['impact']}): {node['target']}: {node.get('failureSummary', '')[:200]}"
        for v in results["violations"]
        if v["impact"] in SERIOUS
        for node in v["nodes"]
    ]


# Each page type in one edition, alternating (their chrome and styles are the same in
# both): one axe run takes about a second on a loaded 2-core
# machine, and Lighthouse scores every type in both editions (make lighthouse).
LIGHT_PAGES = [("" if i % 2 == 0 else "zh/") + path for i, (_, path) in enumerate(PAGE_TYPES)]
# Dark mode changes the colours of text, links, boxes and figures: the page with figures
# (it has code, boxes and links too).
DARK_PAGES = [path for kind, path in PAGE_TYPES if "figures" in kind]


@pytest.mark.parametrize(
    ("scheme", "paths"), [("light", LIGHT_PAGES), ("dark", DARK_PAGES)], ids=["light", "dark"]
)
def test_no_page_type_has_serious_violations(browser, site_url: str, scheme, paths) -> None:
    page = browser.new_page(color_scheme=scheme)
    found = []
    try:
        for path in paths:
            page.goto(f"{site_url}/{path}")
            context = WITHOUT_CODE if path in ("", "zh/") else ARTICLE_WITHOUT_CODE
            repeated = FIRST_ENTRIES.get(path.removeprefix("zh/"), [])
            context = {**context, "exclude": context["exclude"] + repeated}
            found += [f"/{path}: {v}" for v in serious_violations(page, context)]
        if scheme == "light":
            for prefix, query in (("zh/", "张量拼接"),):  # the dialog is the same in English
                page.goto(f"{site_url}/{prefix}")
                page.keyboard.press("/")
                page.keyboard.type(query)
                page.wait_for_function(SHOWN_FOR, arg=query)
                found += [f"/{prefix} search dialog: {v}" for v in serious_violations(page)]
    finally:
        page.close()
    assert not found, "\n".join(found)


def test_the_page_types_are_checked_in_both_editions() -> None:
    assert {p.startswith("zh/") for p in LIGHT_PAGES} == {True, False}
    assert len(LIGHT_PAGES) == len(PAGE_TYPES)


@functools.cache
def token_classes(site_dir: Path) -> frozenset[str]:
    """Every Pygments token class in the built site's code blocks (e.g. `c1`, `mi`, `nb`)."""
    spans = re.compile(r'<span class="([a-z0-9]{1,3})">')
    return frozenset(
        cls
        for html in site_dir.rglob("*.html")
        for block in re.findall(r'<div class="highlight">.*?</pre>', html.read_text("utf-8"), re.S)
        for cls in spans.findall(block)
    )


# Each token class's colour on the code background, as the browser renders them.
TOKEN_COLOURS = """(classes) => {
  const block = document.querySelector(".highlight");
  const code = block.querySelector("code");
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  return classes.map((cls) => {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = "x";
    code.append(span);
    const colour = rgb(getComputedStyle(span).color);
    span.remove();
    return [cls, colour, rgb(getComputedStyle(code).backgroundColor)];
  });
}"""


def contrast(fg: list[float], bg: list[float]) -> float:
    """WCAG contrast ratio of fg (rgb or rgba over bg) on bg."""
    alpha = fg[3] if len(fg) > 3 else 1.0
    mixed = [alpha * f + (1 - alpha) * b for f, b in zip(fg[:3], bg[:3], strict=True)]

    def luminance(rgb: list[float]) -> float:
        lin = [
            c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4
            for c in rgb
        ]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted([luminance(mixed), luminance(bg[:3])], reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_highlighted_token_is_readable(browser, site_url, built_site, scheme) -> None:
    classes = sorted(token_classes(built_site))
    assert len(classes) > 10  # the site's code really uses many token colours
    page = browser.new_page(color_scheme=scheme)
    try:
        page.goto(f"{site_url}/losses/binary/")
        measured = page.evaluate(TOKEN_COLOURS, classes)
    finally:
        page.close()
    low = [f"{cls}: {contrast(fg, bg):.2f}:1" for cls, fg, bg in measured if contrast(fg, bg) < 4.5]
    assert not low, f"token colours below 4.5:1 on the code background ({scheme}): {low}"


def test_contrast_is_computed_as_wcag_does() -> None:
    assert contrast([0, 0, 0], [255, 255, 255]) == pytest.approx(21.0)
    assert contrast([0x71, 0x71, 0x71], [0xF5, 0xF5, 0xF5]) == pytest.approx(4.47, abs=0.01)


def test_a_serious_violation_is_found(browser) -> None:
    # The check can fail: grey text on white (2.3:1) is reported.
    page = browser.new_page()
    try:
        page.set_content(
            '<html lang="en"><head><title>t</title></head><body><main>'
            '<p style="color:#aaa;background:#fff">low contrast</p></main></body></html>'
        )
        assert any(v.startswith("color-contrast (serious)") for v in serious_violations(page))
    finally:
        page.close()
