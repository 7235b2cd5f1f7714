"""The site's two languages: each English page `x.md` has its 简体中文 twin `x.zh.md`.

mkdocs-static-i18n (suffix layout, mkdocs.yml) builds the English site at /
and the Chinese one at /zh/. The English page is the source: the code is the
same in both (tests/test_translations.py compares every embed, heading anchor
and box), so counting code blocks or finding the page that shows a snippet
reads English pages only, while each language's generated pages (Errata,
Verification) read that language's pages.
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT = "en"
TRANSLATIONS = ("zh",)
LANGUAGES = (DEFAULT, *TRANSLATIONS)
_SUFFIX = re.compile(r"\.(?P<lang>[a-z]{2})\.md$")


def language_of(page: str | Path) -> str:
    """'zh' for `losses/binary.zh.md`, 'en' for `losses/binary.md`."""
    found = _SUFFIX.search(Path(page).name)
    return found["lang"] if found and found["lang"] in TRANSLATIONS else DEFAULT


def source_page(page: str | Path) -> str:
    """The English page a translation belongs to: `losses/binary.zh.md` -> `losses/binary.md`."""
    page = Path(page).as_posix()
    lang = language_of(page)
    return page if lang == DEFAULT else page.removesuffix(f".{lang}.md") + ".md"


def twin(page: str | Path, lang: str) -> str:
    """The page in `lang`: `losses/binary.md` -> `losses/binary.zh.md` (no check it exists)."""
    source = source_page(page)
    return source if lang == DEFAULT else source.removesuffix(".md") + f".{lang}.md"


def source_pages(docs_dir: Path) -> list[Path]:
    """Every English page under docs_dir (not the translations, not assets/), sorted."""
    return sorted(
        p
        for p in docs_dir.rglob("*.md")
        if language_of(p) == DEFAULT and "assets" not in p.relative_to(docs_dir).parts
    )


def pages_in(docs_dir: Path, lang: str) -> list[tuple[str, Path]]:
    """(English docs-relative page, the file to read for `lang`) for every page.

    A page not yet translated is read in English, as mkdocs-static-i18n then
    shows it (tests/test_translations.py fails on a missing translation).
    """
    found = []
    for source in source_pages(docs_dir):
        page = source.relative_to(docs_dir).as_posix()
        translated = docs_dir / twin(page, lang)
        found.append((page, translated if translated.is_file() else source))
    return found


def url_prefix(lang: str) -> str:
    """Where `lang`'s edition is served, relative to the site's root: '' or 'zh/'."""
    return "" if lang == DEFAULT else f"{lang}/"


def built_page(page: str, lang: str) -> str:
    """Where the build writes the English page `page` in `lang`: `zh/tensors/reshape/index.html`.

    MkDocs' own rule for the destination (File.dest_uri, with directory URLs, the
    default), under the language's folder (mkdocs-static-i18n builds /zh/).
    """
    from mkdocs.structure.files import File

    dest = File(page, src_dir=None, dest_dir="", use_directory_urls=True).dest_uri
    return url_prefix(lang) + dest


def of_build(config) -> str:
    """The language MkDocs is building now (mkdocs-static-i18n sets the theme's language)."""
    lang = str(config.theme.get("language") or DEFAULT)
    return lang if lang in LANGUAGES else DEFAULT


def edition_path(english_path: str, lang: str) -> str:
    """A page's path in the site in `lang`: `losses/binary/` -> `zh/losses/binary/` ("" is
    the English home page, `zh/` the Chinese one)."""
    return english_path if lang == DEFAULT else f"{lang}/{english_path}"


def english_path(path: str) -> str:
    """The English page of a site path: `zh/losses/binary/` -> `losses/binary/`."""
    first, _, rest = path.partition("/")
    return rest if first in TRANSLATIONS else path
