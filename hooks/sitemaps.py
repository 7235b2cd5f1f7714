"""MkDocs hook: a `sitemap.xml` in every page's folder, for Material's language switcher.

Material fetches one beside each of a page's `hreflang` links (main.html); see
docverify.sitemaps. Each edition's build writes its own folders' sitemaps.
"""

from __future__ import annotations

from pathlib import Path

from docverify import languages
from docverify.sitemaps import folder_sitemaps

_paths: dict[str, list[str]] = {}


def on_pre_build(config):
    _paths[languages.of_build(config)] = []


def on_post_page(output, page, config):
    _paths[languages.of_build(config)].append(page.url)
    return output


def on_post_build(config):
    site_url = config.site_url or "/"
    for folder, xml in folder_sitemaps(_paths[languages.of_build(config)], site_url).items():
        out = Path(config.site_dir) / folder / "sitemap.xml"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(xml, encoding="utf-8")
