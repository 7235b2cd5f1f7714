"""MkDocs hook: the search documents of each edition, for the site's search dialog.

Each built page becomes one document (docverify.search_index: title, headings,
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

from docverify import languages
from docverify.search_index import page_document

_documents: dict[str, list[dict]] = {}


def on_pre_build(config):
    _documents[languages.of_build(config)] = []


def on_post_page(output, page, config):
    meta = page.meta.get("search") or {}
    if not meta.get("exclude"):
        boost = float(meta.get("boost", 1.0))
        doc = page_document(page.url, output, boost=boost, section=page.is_index)
        if doc:
            _documents[languages.of_build(config)].append(doc)
    return output


def on_post_build(config):
    lang = languages.of_build(config)
    out = Path(config.site_dir) / "search" / f"{lang}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_documents[lang], ensure_ascii=False), encoding="utf-8")
