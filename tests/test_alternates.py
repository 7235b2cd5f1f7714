"""Each page names its twins for search engines, and Material's switcher finds its sitemaps.

- in every built page's head, one absolute `hreflang` link per language and
  `x-default`, the English page: the page and its twin name each other
  (Lighthouse's SEO audit refuses relative ones);
- a `sitemap.xml` beside each of those links, where Material's language
  switcher fetches one (docverify.site.sitemaps, sitemap_files), listing only
  pages at or under its folder;
- the twins' paths the templates use (overrides/partials/twins.html) hold under
  a sub-path of site_url too (GitHub Pages), for the home pages as well.
The browser side (no request fails) is tests/test_site_console.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader

from docverify.i18n import languages
from docverify.paths import REPO_ROOT
from docverify.site.built_site import built_for
from docverify.site.sitemaps import folder_sitemaps

_HREFLANG = re.compile(r'<link rel="alternate" href="([^"]*)" hreflang="([^"]*)">')
_LOC = re.compile(r"<loc>([^<]*)</loc>")


def _site_path(page: Path, site: Path) -> str:
    path = page.parent.relative_to(site).as_posix()
    return "" if path == "." else f"{path}/"


def test_every_page_names_its_twins_absolutely_with_a_sitemap_beside_each(built_site: Path) -> None:
    site_url = built_for(built_site).removesuffix("/")  # the address it was built for
    pages = [p for p in built_site.rglob("index.html") if "assets" not in p.parts]
    wrong = []
    for page in pages:
        path = _site_path(page, built_site)
        english = languages.english_path(path)
        expected = {lang: languages.edition_path(english, lang) for lang in languages.LANGUAGES}
        expected["x-default"] = english
        links = _HREFLANG.findall(page.read_text(encoding="utf-8"))
        found = {lang: href for href, lang in links}
        if len(links) != len(found) or found != {k: f"{site_url}/{v}" for k, v in expected.items()}:
            wrong.append(f"/{path}: {links}")
        for href in found.values():
            inside = href.startswith(f"{site_url}/")
            if (
                inside
                and not (built_site / href.removeprefix(f"{site_url}/") / "sitemap.xml").is_file()
            ):
                wrong.append(f"/{path}: no sitemap.xml beside {href}")
    assert len(pages) > 100 and not wrong, "\n".join(wrong)


def test_a_folders_sitemap_lists_the_pages_under_it_with_their_twins() -> None:
    paths = ["zh/", "zh/losses/", "zh/losses/binary/", "zh/tags/", "zh/losses/x.png"]
    maps = folder_sitemaps(paths, "https://example.org/notes/")
    assert sorted(maps) == ["zh/", "zh/losses/", "zh/losses/binary/", "zh/tags/"]
    assert _LOC.findall(maps["zh/losses/"]) == [
        "https://example.org/notes/zh/losses/",
        "https://example.org/notes/zh/losses/binary/",
    ]
    assert len(_LOC.findall(maps["zh/"])) == 4
    binary = maps["zh/losses/binary/"]
    assert 'hreflang="en" href="https://example.org/notes/losses/binary/"' in binary
    assert 'hreflang="zh" href="https://example.org/notes/zh/losses/binary/"' in binary
    assert 'hreflang="x-default" href="https://example.org/notes/losses/binary/"' in binary
    assert "" not in folder_sitemaps(["", "losses/"], "https://example.org/")  # the plugin's


@pytest.mark.parametrize("site_url", ["http://127.0.0.1:8000/", "https://example.org/notes/"])
def test_twins_paths_hold_under_a_sub_path(site_url: str) -> None:
    # mkdocs-static-i18n's links: a page's twin as its path, a home page's as an absolute
    # path under site_url's own path.
    under = site_url.split("//", 1)[1].partition("/")[2]
    env = Environment(loader=FileSystemLoader(REPO_ROOT / "overrides"))
    twins = env.get_template("partials/twins.html").make_module({"config": {"site_url": site_url}})
    links = {
        "zh/losses/binary/": "zh/losses/binary/",
        "losses/binary/": "losses/binary/",
        f"/{under}": "",
        f"/{under}zh/": "zh/",
    }
    assert {link: str(twins.path({"link": link})) for link in links} == links
