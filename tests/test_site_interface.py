"""The Chinese edition's interface speaks Chinese: header, footer, palette toggle, ¶ links
and the search dialog, as chromium shows them.

Material translates its own words when `theme.language` is `zh` (mkdocs-static-i18n sets
it per edition); the words mkdocs.yml writes (the palette toggle's names) are overridden
for the zh edition in the i18n plugin's language settings; the ¶ links' title is the toc
extension's `permalink_title`, set per edition by the notes plugin (site_text
"theme.permalink"); the footer's "Made with" line is overrides/partials/copyright.html.
Each test reads the visible text and the `title`, `aria-label` and `placeholder`
attributes of those parts of a page, in both editions: the English page shows the English
words, which shows that the check would see them on a Chinese page.
"""

from __future__ import annotations

import re

import pytest

PAGES = ("", "errors/shape_errors/", "data/pinned_memory/")
# Names that are the same in both languages: the other edition's name in the language
# selector, the theme's name in the footer, the site's subject.
NAMES = ("Material for MkDocs", "English", "PyTorch", "GPU", "CPU")
# Every interface part a reader meets outside the page's own text: (where, selector,
# whether its visible text counts; the header's page title and the footer's neighbour
# titles are the pages' own words, so only their labels count there).
PARTS = [
    ("skip link", ".md-skip", True),
    ("header", "header.md-header [title], header.md-header [aria-label]", False),
    ("header", "header.md-header .md-header__button, header.md-header .md-select", True),
    ("palette toggle", "form[data-md-component=palette] label", True),
    ("navigation", "nav.md-nav[aria-label], .md-tabs[aria-label]", False),
    ("¶ link", "a.headerlink", True),
    ("edit button", "a.md-content__button", True),
    ("copy button", "button.md-clipboard", False),
    ("back to top", ".md-top", True),
    ("footer", ".md-footer__direction, .md-copyright", True),
    ("footer", "footer nav[aria-label]", False),  # its links: "上一页: <the page's title>"
    ("search dialog", "#site-search, #site-search *", True),
]
_COLLECT = """parts => parts.flatMap(([where, selector, text]) =>
  [...document.querySelectorAll(selector)].flatMap(el => [
    ...["title", "aria-label", "placeholder"]
      .filter(name => el.hasAttribute(name))
      .map(name => [where, `${name}=${el.getAttribute(name)}`]),
    ...(text ? [[where, (el.innerText || el.textContent || "").trim()]] : []),
  ]))"""


def english_words(text: str) -> list[str]:
    """The English words of an interface string, the names that stay in English left out."""
    for name in NAMES:
        text = text.replace(name, "")
    text = re.sub(r"^(?:title|aria-label|placeholder)=", "", text)
    return re.findall(r"[A-Za-z]{3,}", text)


def interface_strings(browser, url: str) -> list[tuple[str, str]]:
    """(part, string) of each interface string of the page at `url`, its search dialog
    opened and given a query that finds nothing (so that its status line speaks)."""
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load")
        page.wait_for_selector("a.headerlink", state="attached")
        page.locator("button.site-search__open").click()
        page.locator("#site-search-input").fill("qqqzzzxxx")
        page.wait_for_function(
            "document.querySelector('#site-search-status').textContent.trim() !== ''"
        )
        page.wait_for_timeout(300)  # the search has answered the query
        found = page.evaluate(_COLLECT, [list(p) for p in PARTS])
    finally:
        page.close()
    return [(where, s) for where, s in found if s]


@pytest.mark.parametrize("path", PAGES)
def test_a_chinese_page_shows_no_english_interface_string(browser, site_url, path) -> None:
    strings = interface_strings(browser, f"{site_url}/zh/{path}")
    parts = {where for where, _ in strings}
    assert {"palette toggle", "footer", "search dialog", "header"} <= parts, parts
    if path:
        assert "¶ link" in parts, parts  # a content page's headings
    english = sorted({f"{where}: {s!r}" for where, s in strings if english_words(s)})
    assert not english, "English on /zh/" + path + ":\n" + "\n".join(english)


def test_the_english_page_shows_the_english_words_the_check_looks_for(browser, site_url) -> None:
    strings = interface_strings(browser, f"{site_url}/errors/shape_errors/")
    shown = {s for _, s in strings}
    for words in (
        "title=Switch to dark mode",
        "title=Switch to light mode",
        "title=Permanent link",
        "Made with Material for MkDocs",
        "placeholder=Search",
    ):
        assert any(words in s for s in shown), (words, sorted(shown))
    assert all(english_words(w) for w in ("Switch to dark mode", "Permanent link", "Made with"))
