"""The navigation, from the pages themselves: their front matter, in both languages.

A page says where it goes: `weight:` (its place among the pages of its folder,
smallest first) and, where its `# heading` is too long for the navigation,
`title:` (its name there and in the browser's tab). A section is a folder with
an `index.md`: the section's title is that page's title, and its `weight`
places the section. The home page comes first, titled as the build says (site_text
`nav.home`: a title in its front matter would also replace the site's name in
its browser tab); other pages at the top of docs/ go in a
last section whose title the build writes (site_text `nav.about`). Each Chinese
twin gives its own `title:` (and heading), which become mkdocs-static-i18n's
`nav_translations`. Adding a page adds nothing to mkdocs.yml.

A section's index page shows its pages as a table where it writes
`<!-- section-pages -->`: each page's title, linked, and the `summary:` of its
front matter in the page's language (docverify.site.section_pages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docverify.contract import front_matter
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.problems import Problem

_HEADING = re.compile(r"^# (.+?)\s*(?:\{[^}]*\})?\s*$", re.MULTILINE)


@dataclass(frozen=True)
class NavPage:
    path: str  # docs-relative English page, e.g. tensors/reshape.md
    titles: dict[str, str]  # language -> title in the navigation
    weight: float
    summaries: dict[str, str]  # language -> `summary:` of the front matter ("" if none)

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]

    @property
    def is_index(self) -> bool:
        return Path(self.path).name == "index.md"


def _read(docs_dir: Path, page: str, lang: str) -> tuple[dict, str]:
    path = docs_dir / languages.twin(page, lang)
    markdown = path.read_text(encoding="utf-8") if path.is_file() else ""
    meta, body = front_matter.split(markdown)
    return meta, body


def pages(docs_dir: Path) -> tuple[list[NavPage], list[Problem]]:
    """Every page with its titles, weight and summaries; what is missing, as problems."""
    found, problems = [], []
    for md in languages.source_pages(docs_dir):
        page = md.relative_to(docs_dir).as_posix()
        titles, summaries, weight = {}, {}, None
        for lang in languages.LANGUAGES:
            meta, body = _read(docs_dir, page, lang)
            heading = _HEADING.search(body)
            title = str(meta.get("title") or (heading[1] if heading else ""))
            if not title:
                where = f"docs/{languages.twin(page, lang)}"
                problems.append(Problem(where, 1, "needs a `# heading` or a `title:`"))
            titles[lang] = title
            summaries[lang] = str(meta.get("summary", "")).strip()
            if lang == languages.DEFAULT:
                weight = meta.get("weight")
        if page != "index.md" and not isinstance(weight, int | float):
            problems.append(
                Problem(f"docs/{page}", 1, "needs `weight:` in its front matter (its place)")
            )
            weight = 0
        found.append(NavPage(page, titles, float(weight or 0), summaries))
    return found, problems


def children(found: list[NavPage], folder: str) -> list[NavPage]:
    """The pages of one section, in their order (not its index page)."""
    inside = [p for p in found if p.folder == folder and not p.is_index]
    return sorted(inside, key=lambda p: (p.weight, p.path))


def nav(found: list[NavPage]) -> list:
    """mkdocs.yml's `nav:` as MkDocs reads it, in English (each title given, as before)."""
    sections = sorted(
        (p for p in found if p.is_index and p.folder),
        key=lambda p: (p.weight, p.path),
    )
    entries: list = [{text(languages.DEFAULT, "nav.home"): "index.md"}]
    for index in sections:
        items: list = [index.path]
        items += [{p.titles[languages.DEFAULT]: p.path} for p in children(found, index.folder)]
        entries.append({index.titles[languages.DEFAULT]: items})
    top = children(found, "")
    if top:
        about = text(languages.DEFAULT, "nav.about")
        entries.append({about: [{p.titles[languages.DEFAULT]: p.path} for p in top]})
    return entries


def translations(found: list[NavPage], lang: str) -> dict[str, str]:
    """English navigation title -> its title in `lang` (mkdocs-static-i18n's nav_translations)."""
    table = {p.titles[languages.DEFAULT]: p.titles[lang] for p in found if p.titles[lang]}
    for key in ("nav.home", "nav.about"):
        table[text(languages.DEFAULT, key)] = text(lang, key)
    return table


def section_titles(found: list[NavPage], lang: str = languages.DEFAULT) -> dict[str, str]:
    """Folder -> its section's title in `lang` (the Errata page's headings)."""
    return {p.folder: p.titles[lang] for p in found if p.is_index and p.folder}
