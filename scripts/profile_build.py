"""Where `mkdocs build` spends its time, against the same build without the site's plugin.

`make profile-build` builds the site (both editions) ROUNDS times each way, each
build in a fresh process as `make build` runs it, alternating: with mkdocs.yml as it is, and with the `notes` plugin left out
(the theme, mkdocs-static-i18n and pymdownx alone, the baseline of CONTRIBUTING's
"Where the build's time goes"). It prints the CPU seconds of each, their ratio, and,
for the full build, the seconds of each plugin event and phase, of Markdown's
conversion and of the theme's templates (medians over the rounds).

Each part is timed by wrapping it (CPU time, so a busy machine changes the figures
less), not under a profiler, whose overhead would inflate Python-heavy parts more than
the rest. `--functions N` adds cProfile's top N functions of this repository, from one
more full build.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import functools
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_LINE = "  - notes\n"


def _timed(owner, name: str, label: str, spent: dict[str, float]) -> None:
    """Replace owner.name with a wrapper that adds its CPU seconds to spent[label]."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - start

    setattr(owner, name, wrapper)


def _instrument(spent: dict[str, float]) -> None:
    import jinja2
    import markdown

    from docverify.site import (
        badges,
        downloads,
        embed_check,
        generated_pages,
        matrix_lines,
        proof_links,
        section_pages,
        site_search,
    )
    from docverify.site.plugin import NotesPlugin

    _timed(markdown.Markdown, "convert", "Markdown to HTML (Python-Markdown, pymdownx)", spent)
    _timed(jinja2.Template, "render", "theme templates (Jinja2)", spent)
    for event in ("on_config", "on_files", "on_page_markdown", "on_post_page", "on_post_build"):
        _timed(NotesPlugin, event, f"plugin: {event}", spent)
    for module, name in (
        (embed_check, "check"),
        (proof_links, "link"),
        (section_pages, "fill"),
        (matrix_lines, "add"),
        (badges, "add"),
        (generated_pages, "fill"),
        (downloads, "add_files"),
        (proof_links, "anchor_checks"),
        (site_search, "add_document"),
    ):
        _timed(module, name, f"  {module.__name__.rsplit('.', 1)[1]}.{name}", spent)


def _build(config: str) -> None:
    from mkdocs.__main__ import cli

    with tempfile.TemporaryDirectory() as site:
        argv = ["build", "--strict", "--quiet", "-f", config, "--site-dir", site]
        cli.main(argv, standalone_mode=False)


def _child(config: str) -> None:
    """One build in this fresh process, as `make build` runs it: prints its CPU seconds,
    imports included, and each timed part's, as JSON."""
    spent: dict[str, float] = collections.defaultdict(float)
    _instrument(spent)
    _build(config)
    print(json.dumps({"total": time.process_time(), "parts": spent}))


def _run(config: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", config],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"mkdocs build -f {config} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--functions", type=int, default=0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.chdir(ROOT)
    if args.child:
        _child(args.child)
        return 0
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if PLUGIN_LINE not in text:
        sys.exit(f"mkdocs.yml: no line {PLUGIN_LINE.strip()!r} to leave out for the baseline")
    # The baseline's configuration sits beside mkdocs.yml: its paths are relative to it.
    baseline = ROOT / ".mkdocs-without-plugin.yml"
    baseline.write_text(text.replace(PLUGIN_LINE, ""), encoding="utf-8")
    full, bare, parts = [], [], collections.defaultdict(list)
    try:
        _run("mkdocs.yml")  # warm-up: byte-compiled modules, the disk cache
        for _ in range(args.rounds):
            found = _run("mkdocs.yml")
            full.append(found["total"])
            for label, seconds in found["parts"].items():
                parts[label].append(seconds)
            bare.append(_run(baseline.name)["total"])
    finally:
        baseline.unlink()
    pages = sum(1 for p in (ROOT / "docs").rglob("*.md") if "generated" not in p.parts)
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; {pages} page files; each build a fresh "
        f"process; median of {args.rounds} alternating rounds, CPU seconds"
    )
    full_s, bare_s = statistics.median(full), statistics.median(bare)
    ratios = [f / b for f, b in zip(full, bare, strict=True)]
    print(f"{full_s:8.2f}  mkdocs build, both editions")
    print(f"{bare_s:8.2f}  the same without the notes plugin")
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"{statistics.median(ratios):8.2f}x ratio (per round: {each})")
    print(f"{(full_s - bare_s) / pages * 1000:8.1f}  ms per page file added by the plugin")
    for label, values in parts.items():
        print(f"{statistics.median(values):8.2f}  {label}")
    if args.functions:
        profile = cProfile.Profile(time.process_time)
        profile.runcall(_build, "mkdocs.yml")
        print("\nTop functions of this repository, by their own time (cProfile, one build):")
        pstats.Stats(profile).sort_stats("tottime").print_stats(r"docverify", args.functions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
