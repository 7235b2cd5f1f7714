"""Phase: live verification under `mkdocs serve` (`make serve`).

When a snippet is saved, the dev server's rebuild first re-runs that snippet
(with torch already imported, in a warm forkserver), updates the verification
report, and removes the built pages that embed it, in both languages, with the
Verification page; `mkdocs serve --dirty` then rebuilds only those, and the
browser reloads. A failure shows on the page: the badge says FAILED and a box
under the title holds the `#>` diff or the traceback. The machinery is
docverify.site.live; this module only connects it to the plugin's events.

Nothing happens under `mkdocs build`, and nothing here imports torch: without
torch (docs-only requirements) `mkdocs serve` logs that live verification is
off and serves as usual. The plugin calls `before_build` before it reads the
report, and `annotate` after the embed check (which checks the page as written,
before the failure box is added) and before the badges (which show the new result).
"""

from __future__ import annotations

from pathlib import Path

from docverify.site import live
from docverify.site.state import SiteBuild


def start(root: Path) -> None:
    """Under `mkdocs serve`: the session, for the checkout `root`."""
    live.start(root)


def watch(config) -> None:
    if live.SESSION is not None and not live.SESSION.watched:
        # What `mkdocs serve` watches: the pages, mkdocs.yml and `watch:` (snippets, src).
        watched = [config.docs_dir, config.config_file_path, *config.watch]
        live.SESSION.watched = [Path(p) for p in watched]


def before_build(config) -> None:
    # mkdocs-static-i18n runs a second build per language, inside the first: only the
    # first one finds changes, and it removes the built pages of every language.
    if live.SESSION is not None:
        live.SESSION.before_build(Path(config.site_dir), Path(config.docs_dir))


def annotate(build: SiteBuild, markdown: str, page) -> str:
    if live.SESSION is None:
        return markdown
    return live.SESSION.annotate(f"docs/{page.file.src_uri}", markdown, build.lang)


def stop() -> None:
    live.stop()
