"""MkDocs hook: fail the build, naming page:line, when a page's code is not embedded properly.

pymdownx.snippets (check_paths: true) already stops on a missing file or
section, but its error does not say which page asked for it. This hook runs
first and reports every problem on the page at once. The rules live in
docverify.embeds, shared with the test suite.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

from docverify.embeds import page_problems

ROOT = Path(__file__).resolve().parents[1]  # replaced by mkdocs.yml's folder in on_config


def on_config(config):
    global ROOT
    ROOT = Path(config.config_file_path).resolve().parent
    return config


def on_page_markdown(markdown, page, config, files):
    page_path = f"docs/{page.file.src_uri}"
    # MkDocs has cut the YAML front matter off: count its lines back in, so that
    # page:line names the line of the file, as the contract test does.
    source = page.file.content_string
    skipped = source[: len(source) - len(markdown)] if source.endswith(markdown) else ""
    problems = page_problems(page_path, "\n" * skipped.count("\n") + markdown, ROOT)
    if problems:
        raise PluginError("Snippet embedding errors:\n  " + "\n  ".join(problems))
    return markdown
