"""MkDocs hook: offer every content page as a script (.py) and as a notebook (.ipynb).

For each page that shows Python code, the build writes next to it in the site
`<page>.py` (the page program: the page's code blocks in page order,
docverify.page_program) and `<page>.ipynb` (the page as a notebook,
docverify.notebook), and adds under the page title a line linking both. The
files are generated at build time only (never committed); `mkdocs build
--strict` fails if a link does not resolve. tests/test_downloads.py checks
that every notebook's code cells are the page program and runs one through a
real kernel.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from docverify import languages
from docverify.notebook import NOTEBOOK_SUFFIX, notebook_text, page_notebook
from docverify.page_program import PageProgram, build, fenced_embeds
from docverify.page_title import under_title
from docverify.sections import SnippetFormatError
from docverify.site_text import text

_programs: dict[str, PageProgram] = {}


def download_names(src_uri: str) -> tuple[str, str]:
    """(script, notebook) paths in the site for the page `src_uri` (e.g. tensors/reshape.md).

    A translation gets its own pair (`tensors/reshape.zh.py`, `.zh.ipynb`): the
    notebook's prose is in its language; the script is the same program.
    """
    base = src_uri.removesuffix(".md")
    return f"{base}.py", f"{base}{NOTEBOOK_SUFFIX}"


def download_line(program: PageProgram, lang: str = languages.DEFAULT) -> str:
    """The line under the page title, with links relative to the page's Markdown file."""
    script, notebook = download_names(f"{program.stem}.md")
    # What the reader's browser saves: the English page's name, whatever the language.
    saved_script, saved_notebook = download_names(languages.source_page(f"{program.stem}.md"))
    how = ""
    if program.launch:
        how = text(lang, "download.launch", command=f"`{program.run_command(saved_script)}`")
    elif program.needs_cuda:
        how = text(lang, "download.cuda")
    how = f" ({how})" if how else ""
    return (
        '<p class="page-downloads" markdown>'
        f'[{text(lang, "download.script")}]({script}){{ download="{saved_script}" }}{how} · '
        f'[{text(lang, "download.notebook")}]({notebook}){{ download="{saved_notebook}" }}'
        "</p>"
    )


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
    file.generated_by = "hooks/downloads.py"
    file.content_string = content
    return file


# After mkdocs-static-i18n (-100) has chosen this language's pages, so that each
# language's pages get their own downloads.
@event_priority(-110)
def on_files(files, config):
    root = Path(config.config_file_path).resolve().parent
    docs = Path(config.docs_dir).resolve().relative_to(root).as_posix()
    _programs.clear()
    for file in list(files.documentation_pages()):
        page = f"{docs}/{file.src_uri}"

        markdown = file.content_string
        if not fenced_embeds(page, markdown):
            continue
        try:
            program = build(page, root, markdown)
            notebook = page_notebook(program, markdown, site_url=config.site_url or "")
        except SnippetFormatError:
            continue  # a bad embed: hooks/snippet_embeds.py fails the build naming page:line
        contents = (program.source, notebook_text(notebook))
        for name, content in zip(download_names(file.src_uri), contents, strict=True):
            if files.get_file_from_path(name) is not None:
                raise PluginError(
                    f"{docs}/{name}: the build generates this download for {page}; "
                    "remove the file (downloads are never committed)"
                )
            files.append(_generated(config, name, content))
        _programs[file.src_uri] = program
    return files


def on_page_markdown(markdown, page, config, files):
    program = _programs.get(page.file.src_uri)
    return add_download_line(markdown, program, languages.of_build(config)) if program else markdown
