"""MkDocs hook: live verification under `mkdocs serve` (`make serve`).

When a snippet is saved, the dev server re-runs only that snippet in a warm
worker that already has torch imported, updates the verification report, and
rebuilds and reloads the pages that embed it. A failure shows on the page (the
badge says FAILED, a box under the title holds the `#>` diff or the traceback).
The machinery is docverify.live; this file only connects it to MkDocs' events.

Nothing happens under `mkdocs build`, and nothing here imports torch: without
torch (docs-only requirements) `mkdocs serve` logs that live verification is
off and serves as usual.

Listed in mkdocs.yml after hooks/snippet_embeds.py (which checks the page as
written, before the failure box is added) and before hooks/verification.py
(whose badges then read the report this hook just updated).
"""

from __future__ import annotations

from pathlib import Path

from docverify import live

ROOT = Path(__file__).resolve().parents[1]


def on_startup(command, dirty):
    if command == "serve":
        live.start(ROOT)


def on_serve(server, config, builder):
    if live.SESSION is not None:
        live.SESSION.attach(server, builder, config)
    return server


def on_pre_build(config):
    if live.SESSION is not None:
        live.SESSION.site.complete = False


def on_nav(nav, config, files):
    if live.SESSION is not None:
        live.SESSION.site.nav = nav


def on_env(env, config, files):
    if live.SESSION is not None:
        site = live.SESSION.site
        site.config, site.files, site.env = config, files, env
    return env


def on_post_build(config):
    if live.SESSION is not None:
        live.SESSION.site.complete = True


def on_page_markdown(markdown, page, config, files):
    if live.SESSION is None:
        return markdown
    return live.SESSION.annotate(f"docs/{page.file.src_uri}", markdown)


def on_shutdown():
    live.stop()
