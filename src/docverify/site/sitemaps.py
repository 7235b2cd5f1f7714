"""A sitemap in every page's folder: where Material's language switcher looks for one.

Material's switcher (`setupAlternate` in its bundle) fetches `sitemap.xml` relative
to each of a page's `<link rel="alternate" hreflang>` links, that is from the
page's own folder and from its twin's (`losses/binary/sitemap.xml`,
`zh/losses/binary/sitemap.xml`); without a file there every page load logged a 404
in the console. Each folder gets the sitemap of the pages at or under it in its
edition (the sitemap protocol allows no others), each page with its twin in
every language and `x-default`, the English page, as in the page's head; the
site's root keeps the one mkdocs-static-i18n writes for both editions.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from docverify.i18n import languages

_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)


def _entry(path: str, site_url: str) -> str:
    english = languages.english_path(path)
    twins = [(lang, languages.edition_path(english, lang)) for lang in languages.LANGUAGES]
    twins.append(("x-default", english))
    links = "".join(
        f'    <xhtml:link rel="alternate" hreflang="{lang}" href={quoteattr(site_url + twin)}/>\n'
        for lang, twin in twins
    )
    return f"  <url>\n    <loc>{site_url + path}</loc>\n{links}  </url>\n"


def folder_sitemaps(paths: list[str], site_url: str) -> dict[str, str]:
    """{folder: sitemap.xml} for every page folder but the site's root, given the site
    paths of one edition's pages (`zh/`, `zh/losses/`, `zh/losses/binary/`, …) and the
    site's address (ending in `/`)."""
    pages = sorted(p for p in paths if p == "" or p.endswith("/"))
    return {
        folder: _HEAD
        + "".join(_entry(p, site_url) for p in pages if p.startswith(folder))
        + "</urlset>\n"
        for folder in pages
        if folder
    }
