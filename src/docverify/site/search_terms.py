"""Phase: a Chinese page shows its English page's 中文 search terms.

Every English page has, first under its title, `*中文: … · …*`: the words
readers of the original notes search with (tests/test_docs_contract.py). The
Chinese page shows the same terms as `*关键词：… · …*`, read from the English
page at build time, so the list is kept in one place and the Chinese edition's
search index holds the notes' vocabulary too (a translation may word a
concept differently: 方差偏移, 色彩抖动).
"""

from __future__ import annotations

import re

from docverify.contract.page_title import under_title
from docverify.site.state import SiteBuild
from docverify.i18n import languages

_TERMS = re.compile(r"^\*中文: (?P<terms>.+)\*$", re.MULTILINE)


def terms_line(english: str) -> str | None:
    found = _TERMS.search(english)
    return f"*关键词：{found['terms']}*" if found else None


def add_terms(markdown: str, english: str) -> str:
    line = terms_line(english)
    return under_title(markdown, line) if line else markdown


def add(build: SiteBuild, markdown: str, page) -> str:
    src = page.file.src_uri
    if languages.language_of(src) == languages.DEFAULT:
        return markdown
    english = build.docs_dir / languages.source_page(src)
    return add_terms(markdown, english.read_text(encoding="utf-8"))
