"""Where `mkdocs build` spends its time: each phase of the site's plugin, and the rest.

`make profile-build` runs one full build (both editions) under cProfile and prints,
in CPU seconds as cProfile counts them, the plugin's events and phases, Markdown's
conversion, the theme's templates, and the top functions of this repository's
code. CPU time rather than wall time, so a busy machine changes the figures less;
cProfile's own overhead makes them larger than a plain build's, alike for all.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GROUPS = {  # label -> (file part, function name); cumulative CPU seconds
    "whole build": ("mkdocs/commands/build.py", "build"),
    "Markdown to HTML (Python-Markdown, pymdownx)": ("markdown/core.py", "convert"),
    "  of which code highlighting (Pygments)": ("pymdownx/highlight.py", "highlight"),
    "theme templates (Jinja2)": ("jinja2/environment.py", "render"),
    "plugin: files (downloads)": ("docverify/site/plugin.py", "on_files"),
    "plugin: page Markdown (all phases)": ("docverify/site/plugin.py", "on_page_markdown"),
    "  embed check": ("docverify/site/embed_check.py", "check"),
    "  proof links": ("docverify/site/proof_links.py", "link"),
    "  matrix lines": ("docverify/site/matrix_lines.py", "add"),
    "  badges": ("docverify/site/badges.py", "add"),
    "  generated pages": ("docverify/site/generated_pages.py", "fill"),
    "  download line": ("docverify/site/downloads.py", "add_line"),
    "plugin: built HTML (anchors, badge check, search, sitemaps)": (
        "docverify/site/plugin.py",
        "on_post_page",
    ),
    "plugin: end of build (search index, sitemaps)": ("docverify/site/plugin.py", "on_post_build"),
}


def main() -> int:
    from mkdocs.__main__ import cli

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    config = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "mkdocs.yml")
    with tempfile.TemporaryDirectory() as site:
        profile = cProfile.Profile(time.process_time)  # CPU time: a busy machine counts less
        argv = ["build", "--strict", "--quiet", "-f", config, "--site-dir", site]
        profile.runcall(cli.main, argv, standalone_mode=False)
    stats = pstats.Stats(profile)
    rows = stats.stats  # type: ignore[attr-defined]

    def cumulative(part: str, name: str) -> float:
        # Recursive events (the nested Chinese build) count once: the outermost call.
        return max((v[3] for k, v in rows.items() if part in k[0] and k[2] == name), default=0.0)

    print(f"{'CPU s':>8}  part of the build (cProfile, {Path(config).name})")
    for label, (part, name) in GROUPS.items():
        print(f"{cumulative(part, name):8.2f}  {label}")
    print("\nTop functions of this repository, by their own time:")
    stats.sort_stats("tottime").print_stats(r"docverify", 12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
