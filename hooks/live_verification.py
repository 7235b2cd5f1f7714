"""MkDocs hook: live verification under `mkdocs serve` (`make serve`).

When a snippet is saved, the dev server's rebuild first re-runs that snippet
(with torch already imported, in a warm forkserver), updates the verification
report, and removes the built pages that embed it, in both languages, with the
Verification page; `mkdocs serve --dirty` then rebuilds only those, and the
browser reloads. A failure shows on the page: the badge says FAILED and a box
under the title holds the `#>` diff or the traceback. The machinery is
docverify.live; this file only connects it to MkDocs' public events.

Nothing happens under `mkdocs build`, and nothing here imports torch: without
torch (docs-only requirements) `mkdocs serve` logs that live verification is
off and serves as usual.

Listed in mkdocs.yml after hooks/snippet_embeds.py (which checks the page as
written, before the failure box is added) and before hooks/badges.py
and hooks/generated_pages.py (which then read the report this hook just updated).
"""

from __future__ import annotations

from pathlib import Path

from docverify import languages, live


def on_startup(command, dirty):
    if command == "serve":
        live.start(Path(__file__).resolve().parents[1])


def on_config(config):
    if live.SESSION is not None and not live.SESSION.watched:
        # What `mkdocs serve` watches: the pages, mkdocs.yml and `watch:` (snippets, hooks).
        watched = [config.docs_dir, config.config_file_path, *config.watch]
        live.SESSION.watched = [Path(p) for p in watched]
    return config


def on_pre_build(config):
    # mkdocs-static-i18n runs a second build per language, inside the first: only the
    # first one finds changes, and it removes the built pages of every language.
    if live.SESSION is not None:
        live.SESSION.before_build(Path(config.site_dir), Path(config.docs_dir))


def on_page_markdown(markdown, page, config, files):
    if live.SESSION is None:
        return markdown
    lang = languages.of_build(config)
    return live.SESSION.annotate(f"docs/{page.file.src_uri}", markdown, lang)


def on_shutdown():
    live.stop()
