"""Measure the site's search engines against tests/search_cases.yaml: Pagefind vs Material's.

    make compare-search        (writes docs/assets/generated/search/comparison.json)

Builds the site twice: as configured (Pagefind, hooks/pagefind_search.py) and
with Material's built-in search plugin in its place, configured as this site
had it before (its separator; jieba segments the Chinese pages). Serves each
on 127.0.0.1, runs every case through each engine in chromium
(tests/search_driver.py: the same code the browser test uses), and writes each
case's rank per engine. The Verification page shows the summary, rendered from
that file (`render_summary`); tests/test_search_comparison.py re-renders it and
checks it against the data.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import search_driver  # noqa: E402  (tests/search_driver.py: the browser test's own search driver)

OUT = ROOT / "docs" / "assets" / "generated" / "search" / "comparison.json"
SUMMARY = OUT.with_name("comparison_summary.md")
KINDS = ("lookups", "questions")
# Material's search plugin as this site configured it before Pagefind.
MATERIAL_SEARCH_PLUGIN = """  - search:
      separator: '[\\s\\-.,:;!?=()\\[\\]{}"''`/<>|\\u200b]+'
"""


def build(site_dir: Path, *, material_search: bool) -> None:
    config = ROOT / "mkdocs.yml"
    if material_search:
        text = config.read_text(encoding="utf-8")
        text = text.replace("plugins:\n", "plugins:\n" + MATERIAL_SEARCH_PLUGIN, 1)
        config = ROOT / ".compare-search.mkdocs.yml"  # beside mkdocs.yml: same relative paths
        config.write_text(text, encoding="utf-8")
    try:
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)]
            + ["--site-dir", str(site_dir)],
            cwd=ROOT,
            check=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
    finally:
        if material_search:
            config.unlink()


@contextmanager
def served(site_dir: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(site_dir))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def measure() -> dict:
    from playwright.sync_api import sync_playwright

    engines = {
        "pagefind": (search_driver.Pagefind(), False),
        "material": (search_driver.MaterialSearch(), True),
    }
    cases = {kind: search_driver.load_cases(kind) for kind in KINDS}
    results: dict = {"cases": {k: [vars(c) for c in cases[k]] for k in KINDS}, "ranks": {}}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        for name, (engine, material) in engines.items():
            site = Path(tmp) / name
            build(site, material_search=material)
            with served(site) as url:
                results["ranks"][name] = {
                    kind: search_driver.ranks(engine, browser, url, cases[kind]) for kind in KINDS
                }
        browser.close()
    return results


# --- the summary the Verification page embeds ------------------------------------------------

ENGINE_NAMES = {"pagefind": "Pagefind", "material": "Material search"}
WORDS = {
    "en": {
        "header": "| engine | cases | edition | cases | rank 1 | top 3 |",
        "edition": {"en": "English", "zh": "简体中文"},
        "kind": {"lookups": "lookups", "questions": "questions"},
        "verdict": "On the held-out questions, {better} ranks better: {b1} at rank 1 "
        "against {w1} for {worse}. The site uses {better}.",
    },
    "zh": {
        "header": "| 搜索引擎 | 用例 | 版本 | 数量 | 排第 1 | 前 3 |",
        "edition": {"en": "English", "zh": "简体中文"},
        "kind": {"lookups": "查找", "questions": "问题"},
        "verdict": "在留出的问题上，{better} 排得更好：排第 1 的有 {b1}，{worse} 为 {w1}。"
        "本站使用 {better}。",
    },
}


def scores(data: dict, engine: str, kind: str, lang: str) -> tuple[int, int, int]:
    """(cases, found at rank 1, found in the top 3) for one engine, kind and edition."""
    ranks = [
        r
        for c, r in zip(data["cases"][kind], data["ranks"][engine][kind], strict=True)
        if c["lang"] == lang
    ]
    return len(ranks), sum(r == 1 for r in ranks), sum(r is not None and r <= 3 for r in ranks)


def better_engine(data: dict) -> str:
    """The engine with more held-out questions at rank 1 (then in the top 3), both editions."""

    def key(engine: str) -> tuple[int, int]:
        totals = [scores(data, engine, "questions", lang) for lang in ("en", "zh")]
        return sum(t[1] for t in totals), sum(t[2] for t in totals)

    return max(ENGINE_NAMES, key=key)


def render_summary(data: dict, lang: str = "en") -> str:
    words = WORDS[lang]
    rows = [words["header"], "|---|---|---|---:|---:|---:|"]
    for engine in ENGINE_NAMES:
        for kind in KINDS:
            for edition in ("en", "zh"):
                n, top1, top3 = scores(data, engine, kind, edition)
                if n:
                    rows.append(
                        f"| {ENGINE_NAMES[engine]} | {words['kind'][kind]} | "
                        f"{words['edition'][edition]} | {n} | {top1 / n:.0%} | {top3 / n:.0%} |"
                    )
    better = better_engine(data)
    worse = next(e for e in ENGINE_NAMES if e != better)

    def rank1(engine: str) -> str:
        totals = [scores(data, engine, "questions", e) for e in ("en", "zh")]
        return f"{sum(t[1] for t in totals)}/{sum(t[0] for t in totals)}"

    verdict = words["verdict"].format(
        better=ENGINE_NAMES[better], worse=ENGINE_NAMES[worse], b1=rank1(better), w1=rank1(worse)
    )
    return "\n".join([*rows, "", verdict, ""])


def summary_path(lang: str) -> Path:
    return SUMMARY if lang == "en" else SUMMARY.with_suffix(f".{lang}.md")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render-only", action="store_true", help="re-render the summaries")
    args = parser.parse_args(argv)
    if not args.render_only:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(measure(), ensure_ascii=False, indent=1) + "\n", "utf-8")
    data = json.loads(OUT.read_text(encoding="utf-8"))
    for lang in ("en", "zh"):
        summary_path(lang).write_text(render_summary(data, lang), encoding="utf-8")
    print(SUMMARY.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
