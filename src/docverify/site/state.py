"""What one build of the site knows, handed to each phase of the plugin (docverify.site.plugin).

One object instead of module globals: the checkout and its folders, the
verification report and the version matrix (read once per build, after live
verification has merged a saved snippet's result), the page programs of the
build's downloads, and what the search and sitemap phases collect page by page.
mkdocs-static-i18n runs the Chinese build inside the English one, with the same
configuration object: `lang` is set at the start of each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from docverify.contract.page_program import PageProgram
from docverify.i18n import languages
from docverify.matrix.view import Matrix
from docverify.results import report
from docverify.site.site_config import source_url

Reports = dict[str, dict[str, report.SnippetResult]]


@dataclass
class SiteBuild:
    root: Path
    config: object = None  # the MkDocsConfig of the build in progress
    lang: str = languages.DEFAULT  # the edition being built
    source_url: str = ""
    reports: Reports = field(default_factory=dict)
    matrix: Matrix | None = None
    # Every page's place in the navigation (docverify.site.nav), and per page source the
    # program it offers as a download.
    nav_pages: list = field(default_factory=list)
    programs: dict[str, PageProgram] = field(default_factory=dict)
    # Per language: the built pages' URLs in order (sitemaps) and the pages of the build
    # (search). Search documents outlive a build: under `mkdocs serve --dirty` a rebuild
    # renders only some pages, and the others keep their last document.
    built_urls: dict[str, list[str]] = field(default_factory=dict)
    page_urls: dict[str, list[str]] = field(default_factory=dict)
    documents: dict[str, dict[str, dict]] = field(default_factory=dict)
    # Per language, the pages' counted sentences (the home page and Verification show them).
    claims: dict[str, dict] = field(default_factory=dict)
    # Per page source, from its Markdown to its HTML: the HTML kept out of Markdown (raw_html).
    kept_html: dict[str, list[str]] = field(default_factory=dict)

    def configure(self, config) -> None:
        self.config = config
        self.root = Path(config.config_file_path).resolve().parent
        self.source_url = source_url(config)

    def start(self, config) -> None:
        """A build of one edition starts: its language, and the results as they are on disk
        now (the verification report and the version matrix)."""
        self.lang = languages.of_build(config)
        self.claims.pop(self.lang, None)
        self.reports = report.load_all(self.root / ".reports", root=self.root)
        self.matrix = Matrix.load(self.root)

    @property
    def docs_dir(self) -> Path:
        return Path(self.config["docs_dir"]) if self.config else self.root / "docs"
