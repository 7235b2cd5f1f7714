"""Phase: the search documents of each edition, for the site's search dialog.

Each built page becomes one document (docverify.site.search_index: title, headings,
the questions it answers, its 中文 search terms, tags, prose, code; an index
page, which sums up its section, marked as such), written per language to
`search/<lang>.json`; overrides/assets/javascripts/site-search.js
indexes them in the browser with MiniSearch. A page whose front matter says
`search: exclude: true` is left out; `search: boost: x` scales its score
(Material's own keys, so the pages read the same to Material's search plugin).
Nothing is fetched from elsewhere: the documents and the script are the site's.
"""

from __future__ import annotations

import json
from pathlib import Path

from docverify.site.search_index import page_document
from docverify.site.state import SiteBuild

def note_pages(build: SiteBuild, files) -> None:
    # The files as the build uses them: after mkdocs-static-i18n chose this language's pages.
    build.page_urls[build.lang] = [f.url for f in files.documentation_pages()]


def add_document(build: SiteBuild, output: str, page) -> str:
    documents = build.documents.setdefault(build.lang, {})
    meta = page.meta.get("search") or {}
    boost = float(meta.get("boost", 1.0))
    doc = (
        None
        if meta.get("exclude")
        else page_document(page.url, output, boost=boost, section=page.is_index)
    )
    if doc:
        documents[page.file.url] = doc
    else:
        documents.pop(page.file.url, None)
    return output


def write(build: SiteBuild, site_dir: Path) -> None:
    lang = build.lang
    documents = build.documents.get(lang, {})
    found = [documents[url] for url in build.page_urls.get(lang, []) if url in documents]
    out = site_dir / "search" / f"{lang}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(found, ensure_ascii=False), encoding="utf-8")
