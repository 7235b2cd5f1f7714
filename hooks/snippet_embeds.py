"""MkDocs hook: fail the build, naming page:line, when a page's code is not embedded properly.

pymdownx.snippets (check_paths: true) already stops on a missing file or
section, but its error does not say which page asked for it. This hook runs
first and reports every problem on the page at once. The rules live in
docverify.embeds, shared with the test suite. The page is checked as written,
front matter included, so that page:line is the line of the file.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

from docverify.embeds import page_problems
from docverify.problems import listed


def on_page_markdown(markdown, page, config, files):
    root = Path(config.config_file_path).resolve().parent
    problems = page_problems(f"docs/{page.file.src_uri}", page.file.content_string, root)
    if problems:
        raise PluginError(listed("Snippet embedding errors:", problems))
    return markdown
