"""Phase: a section's index page lists its pages, written from the pages themselves.

Where an index page writes `<!-- section-pages -->`, the build puts a table: one
row per page of the section, in navigation order (docverify.site.nav), with the
page's title linked and the `summary:` of its front matter in the page's
language. A summary's proof markers (`{✓ section/page:check}`) become links, as
in the index page's own prose. Adding a page adds its row; the index is not edited.
"""

from __future__ import annotations

from pathlib import Path

from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.site import nav, proof_links
from docverify.site.state import SiteBuild

MARKER = "<!-- section-pages -->"


def fill(build: SiteBuild, markdown: str, page, files) -> str:
    if MARKER not in markdown:
        return markdown
    folder = Path(languages.source_page(page.file.src_uri)).parent.as_posix()
    rows = [text(build.lang, "section.header"), "|---|---|"]
    for child in nav.children(build.nav_pages, folder):
        name = Path(child.path).name
        title = child.titles[build.lang].replace("|", "\\|")
        written_in = f"docs/{languages.twin(child.path, build.lang)}"
        summary = proof_links.links_in(
            build, child.summaries[build.lang], page, files, written_in=written_in
        )
        rows.append(f"| [{title}]({name}) | {summary} |")
    return markdown.replace(MARKER, "\n".join(rows))
