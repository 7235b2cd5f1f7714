"""Phase: fail the build, naming page:line, when a page's code is not embedded properly.

pymdownx.snippets (check_paths: true) already stops on a missing file or
section, but its error does not say which page asked for it. This phase runs
first and reports every problem on the page at once. (Code typed into the page as
an indented block is found in the rendered page: it has no badge, badges.check_html.) The rules live in
docverify.contract.embeds, shared with the test suite. The page is checked as
written, front matter included, so that page:line is the line of the file.
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from docverify.contract.embeds import page_problems
from docverify.problems import listed
from docverify.site.state import SiteBuild


def check(build: SiteBuild, markdown: str, page) -> str:
    page_path = f"docs/{page.file.src_uri}"
    problems = page_problems(page_path, page.file.content_string, build.root, indented=False)
    if problems:
        raise PluginError(listed("Snippet embedding errors:", problems))
    return markdown
