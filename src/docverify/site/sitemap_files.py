"""Phase: a `sitemap.xml` in every page's folder, for Material's language switcher.

Material fetches one beside each of a page's `hreflang` links (main.html); see
docverify.site.sitemaps. Each edition's build writes its own folders' sitemaps.
"""

from __future__ import annotations

from pathlib import Path

from docverify.site.sitemaps import folder_sitemaps
from docverify.site.state import SiteBuild

def start(build: SiteBuild) -> None:
    build.built_urls[build.lang] = []


def note_page(build: SiteBuild, output: str, page) -> str:
    build.built_urls[build.lang].append(page.url)
    return output


def write(build: SiteBuild, site_dir: Path, site_url: str) -> None:
    for folder, xml in folder_sitemaps(build.built_urls[build.lang], site_url or "/").items():
        out = site_dir / folder / "sitemap.xml"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(xml, encoding="utf-8")
