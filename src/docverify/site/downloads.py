"""Phase: offer every content page as a script (.py) and as a notebook (.ipynb).

For each page that shows Python code, the build writes next to it in the site
`<page>.py` (the page program: the page's code blocks in page order,
docverify.contract.page_program) and `<page>.ipynb` (the page as a notebook,
docverify.site.notebook), and adds under the page title a line linking both. What
the code needs beyond a CPU and an empty folder (a CUDA GPU, torchrun, a
checkout of this repository: docverify.contract.needs) is the first line of both files
and follows the links, in the page's language. The files are generated at
build time only (never committed); `mkdocs build --strict` fails if a link
does not resolve. tests/test_downloads.py checks that both files are the code
the page shows, that each says what it needs, and runs one notebook through a
real kernel.
"""

from __future__ import annotations

import functools
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from docverify.contract.needs import Needs, script_name, script_sentence
from docverify.contract.page_program import PageProgram, fenced_embeds
from docverify.contract.page_program import build as build_program
from docverify.contract.page_title import under_title
from docverify.contract.sections import SnippetFormatError
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.site.state import SiteBuild
from docverify.site.notebook import NOTEBOOK_SUFFIX, notebook_text, page_notebook

def download_names(src_uri: str) -> tuple[str, str]:
    """(script, notebook) paths in the site for the page `src_uri` (e.g. tensors/reshape.md).

    A translation gets its own pair (`tensors/reshape.zh.py`, `.zh.ipynb`): the
    notebook's prose is in its language; the script is the same program.
    """
    base = src_uri.removesuffix(".md")
    return f"{base}.py", f"{base}{NOTEBOOK_SUFFIX}"


def script_text(program: PageProgram, lang: str) -> str:
    """The .py download: the page program, after a first line saying what it needs, if
    anything; its CUDA-only blocks, where the rest runs on a CPU, skipped without CUDA."""
    needs = script_sentence(Needs.of_download(program.snippets), lang, script_name(program.page))
    source = program.guarded_source(text(lang, "download.gpu_skipped"))
    return f"# {needs}\n\n{source}" if needs else source


def download_line(program: PageProgram, lang: str = languages.DEFAULT) -> str:
    """The line under the page title, with links relative to the page's Markdown file."""
    script, notebook = download_names(f"{program.stem}.md")
    # What the reader's browser saves: the English page's name, whatever the language.
    saved_script, saved_notebook = download_names(languages.source_page(f"{program.stem}.md"))
    links = (
        f'[{text(lang, "download.script")}]({script}){{ download="{saved_script}" }} · '
        f'[{text(lang, "download.notebook")}]({notebook}){{ download="{saved_notebook}" }}'
    )
    needs = script_sentence(Needs.of_download(program.snippets), lang, saved_script)
    if needs:
        links = text(lang, "download.needs", links=links, needs=needs)
    return f'<p class="page-downloads" markdown>{links}</p>'


def add_download_line(markdown: str, program: PageProgram, lang: str = languages.DEFAULT) -> str:
    return under_title(markdown, download_line(program, lang))


def _generated(config, src_uri: str, content: str) -> File:
    """A file that exists only in the built site (what File.generated makes, callable in tests)."""
    file = File(
        src_uri,
        src_dir=None,
        dest_dir=config.site_dir,
        use_directory_urls=config.use_directory_urls,
    )
    file.generated_by = "docverify.site.downloads"
    file.content_string = content
    return file


# Per page text and program (read-only): under `mkdocs serve` every rebuild lists every
# download, and a notebook takes a validation to write; a saved page changes its own.
@functools.lru_cache(maxsize=512)
def _contents(program: PageProgram, markdown: str, site_url: str) -> tuple[str, str]:
    """(the .py, the .ipynb) of a page."""
    notebook = page_notebook(program, markdown, site_url=site_url)
    return script_text(program, languages.language_of(program.page)), notebook_text(notebook)


def add_files(build: SiteBuild, files, config):
    """The downloads of this language's pages (called after mkdocs-static-i18n chose them)."""
    root = build.root
    docs = Path(config.docs_dir).resolve().relative_to(root).as_posix()
    build.programs.clear()
    for file in list(files.documentation_pages()):
        page = f"{docs}/{file.src_uri}"

        markdown = file.content_string
        if not fenced_embeds(page, markdown):
            continue
        try:
            program = build_program(page, root, markdown)
            contents = _contents(program, markdown, config.site_url or "")
        except SnippetFormatError:
            continue  # a bad embed: the embed check fails the build naming page:line
        for name, content in zip(download_names(file.src_uri), contents, strict=True):
            if files.get_file_from_path(name) is not None:
                raise PluginError(
                    f"{docs}/{name}: the build generates this download for {page}; "
                    "remove the file (downloads are never committed)"
                )
            files.append(_generated(config, name, content))
        build.programs[file.src_uri] = program
    return files


def add_line(build: SiteBuild, markdown: str, page) -> str:
    program = build.programs.get(page.file.src_uri)
    return add_download_line(markdown, program, build.lang) if program else markdown
