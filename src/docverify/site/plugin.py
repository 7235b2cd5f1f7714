"""The site's MkDocs plugin: every phase of the build that this repository adds, in order.

mkdocs.yml lists it once (`- notes`, the entry point in pyproject.toml). Its
phases, named and ordered here rather than by their place in a YAML list:

1. contract: a page whose code is not embedded properly fails the build,
   naming page:line (docverify.site.embed_check);
2. proof links: `{✓ name}` becomes a link to its check line (proof_links);
   a section's index page gets the table of its pages (section_pages);
3. live verification, under `mkdocs serve` only: a saved snippet re-run, its
   failure shown on its pages (live_phase);
4. search terms: a Chinese page shows its English page's 中文 terms (search_terms);
5. matrix lines: under each block and title, the versions where it holds
   (matrix_lines), before the badges, so that the badge stays the first line;
6. badges: a badge under every code block, the run command under the title (badges);
7. generated pages: Verification, Errata, the home headline, summaries (generated_pages);
8. downloads: each page as `.py` and `.ipynb`, linked under its title (downloads);
9. search: each edition's search documents (site_search);
10. sitemaps: a `sitemap.xml` in every page's folder (sitemap_files).

The HTML that phases 2-8 write is kept out of Markdown's conversion and put back
into the page's HTML right after it (raw_html): Markdown would only pass it through.

The built HTML is then checked (one badge per block, every proof link's anchor
present), and each check line gets its anchor.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from jinja2 import FileSystemBytecodeCache
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from docverify.site import (
    badges,
    downloads,
    embed_check,
    generated_pages,
    live_phase,
    matrix_lines,
    proof_links,
    nav,
    raw_html,
    search_terms,
    section_pages,
    site_search,
    sitemap_files,
)
from docverify.i18n import site_text
from docverify.problems import listed
from docverify.site.state import SiteBuild

CHECKOUT = Path(__file__).resolve().parents[3]  # src/docverify/site/plugin.py


class NotesPlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__()
        self.build = SiteBuild(root=Path.cwd())
        self._templates: tempfile.TemporaryDirectory | None = None  # one per command

    # `on_startup` also makes MkDocs keep this one instance across `mkdocs serve` rebuilds,
    # so the search documents of pages a dirty rebuild skips are kept.
    # Before any configuration: the checkout is the plugin's own (on_config checks that it
    # is also the site's).
    def on_startup(self, *, command, dirty):
        if command == "serve":
            live_phase.start(CHECKOUT)

    def on_shutdown(self):
        live_phase.stop()
        if self._templates:  # MkDocs may keep this instance for the next command
            self._templates.cleanup()
            self._templates = None

    def on_config(self, config):
        _same_checkout(Path(config.config_file_path).resolve().parent)
        self.build.configure(config)
        found, problems = nav.pages(Path(config.docs_dir))
        if problems:
            raise PluginError(listed("Pages without their place in the navigation:", problems))
        self.build.nav_pages = found
        if config.nav is None:  # the navigation comes from the pages (docverify.site.nav)
            config.nav = nav.nav(found)
            for language in _i18n_languages(config):
                language.nav_translations = nav.translations(found, language.locale)
        live_phase.watch(config)
        return config

    def on_pre_build(self, *, config):
        live_phase.before_build(config)
        self.build.start(config)
        sitemap_files.start(self.build)
        # The title of each heading's ¶ link, in this edition's language: the toc extension
        # takes one for the whole site, and mkdocs-static-i18n cannot override it per language.
        toc = config.mdx_configs.setdefault("toc", {})
        toc["permalink_title"] = site_text.text(self.build.lang, "theme.permalink")

    # After mkdocs-static-i18n (-100) has chosen this language's pages, so that each
    # language's pages get their own downloads.
    @event_priority(-110)
    def on_files(self, files, *, config):
        return downloads.add_files(self.build, files, config)

    def on_env(self, env, *, config, files):
        site_search.note_pages(self.build, files)
        # MkDocs makes a new Jinja environment for every build (each edition, each rebuild
        # of `mkdocs serve`): compiled templates are kept for the next one (Jinja's own cache).
        if self._templates is None:
            self._templates = tempfile.TemporaryDirectory(prefix="notes-jinja-")
        env.bytecode_cache = FileSystemBytecodeCache(self._templates.name)
        return env

    def on_page_markdown(self, markdown, *, page, config, files):
        build = self.build
        markdown = embed_check.check(build, markdown, page)
        markdown = proof_links.link(build, markdown, page, files)
        markdown = section_pages.fill(build, markdown, page, files)
        markdown = live_phase.annotate(build, markdown, page)
        markdown = search_terms.add(build, markdown, page)
        markdown = matrix_lines.add(build, markdown, page)
        markdown = badges.add(build, markdown, page)
        markdown = generated_pages.fill(build, markdown)
        markdown = downloads.add_line(build, markdown, page)
        markdown, build.kept_html[page.file.src_uri] = raw_html.stash(markdown)
        return markdown

    def on_page_content(self, html, *, page, config, files):
        try:
            return raw_html.restore(html, self.build.kept_html.pop(page.file.src_uri, []))
        except ValueError as err:
            raise PluginError(f"docs/{page.file.src_uri}: {err}") from None

    def on_post_page(self, output, *, page, config):
        if raw_html.left_in(output):
            raise PluginError(
                f"docs/{page.file.src_uri}: a proof link or badge in a heading: "
                "move it into the text under the heading"
            )
        output = proof_links.anchor_checks(output, page)
        output = badges.check_html(output, page)
        output = site_search.add_document(self.build, output, page)
        return sitemap_files.note_page(self.build, output, page)

    def on_post_build(self, *, config):
        site_dir = Path(config.site_dir)
        site_search.write(self.build, site_dir)
        sitemap_files.write(self.build, site_dir, config.site_url)


def _same_checkout(root: Path) -> None:
    """Stop a build of one checkout's pages with another checkout's plugin (a virtual
    environment shared between checkouts installs one of them): `make build` and
    `make serve` put this checkout's src/ first (PYTHONPATH). A site without a plugin of
    its own (a test's copy of the pages) uses the one installed."""
    if CHECKOUT != root and (root / "src" / "docverify").is_dir():
        package = CHECKOUT / "src" / "docverify"
        raise PluginError(
            f"the plugin comes from {package}, not from {root / 'src' / 'docverify'}: "
            "run `make build` or `make serve`, or set PYTHONPATH=src"
        )


def _i18n_languages(config) -> list:
    """mkdocs-static-i18n's languages other than the default, whose titles it translates."""
    i18n = config.plugins.get("i18n")
    return [lang for lang in (i18n.config.languages if i18n else []) if not lang.default]
