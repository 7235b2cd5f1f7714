"""Measure search engines on tests/search_cases.yaml: the site's own, Material's, Pagefind.

    make compare-search        (writes docs/assets/generated/search/comparison.json)

Builds the site as configured (its search: site-search.js on MiniSearch), again
with Material's built-in search plugin in its place, configured as this site
had it before (its separator; jieba segments the Chinese pages), and once more
indexed with Pagefind (its CLI; it segments Chinese at indexing). Serves each
on 127.0.0.1 (built for that address), runs every case through each engine
in chromium (tests/search_driver.py: the code the browser test uses), and
writes each case's rank per engine, with the cases it asked and the day it ran.
The Verification page shows the summary, rendered from that file
(`render_summary`: how many cases, and when); tests/test_measured_summaries.py
re-renders it and checks it against the data.

The comparison is a measurement of the cases it ran, not of today's: a new case
in tests/search_cases.yaml needs no new run (the browser test holds the site's
search to its targets on today's cases). Run it again when the engine changes.
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This checkout's docverify (a shared venv's editable install may be another's) and its
# tests/ (the browser test's search driver).
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

import search_driver  # noqa: E402  (tests/search_driver.py: the browser test's own search driver)

from docverify.site import measured  # noqa: E402
from docverify.site.built_site import built_and_served  # noqa: E402

OUT = ROOT / "docs" / "assets" / "generated" / "search" / "comparison.json"
KINDS = ("lookups", "questions", "chinese_in_english")
# Material's search plugin as this site configured it before.
MATERIAL_SEARCH_PLUGIN = """  - search:
      separator: '[\\s\\-.,:;!?=()\\[\\]{}"''`/<>|\\u200b]+'
"""


@contextmanager
def material_search_config() -> Iterator[Path]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = ROOT / ".compare-search.mkdocs.yml"  # beside mkdocs.yml: same relative paths
    config.write_text(text.replace("plugins:\n", "plugins:\n" + MATERIAL_SEARCH_PLUGIN, 1), "utf-8")
    try:
        yield config
    finally:
        config.unlink()


def index_with_pagefind(site_dir: Path) -> None:
    # The article only (not navigation), without permalinks and badges, as our own documents.
    command = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--quiet"]
    command += ["--root-selector", "article", "--exclude-selectors", ".headerlink"]
    command += ["--exclude-selectors", ".snippet-badge"]
    subprocess.run(command, check=True)


def measure() -> dict:
    from playwright.sync_api import sync_playwright

    cases = {kind: search_driver.load_cases(kind) for kind in KINDS}
    results: dict = {
        "measured": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "cases": {
            k: [{"query": c.query, "page": c.page, "lang": c.lang} for c in cases[k]] for k in KINDS
        },
        "ranks": {},
    }
    engines = {
        "site": search_driver.SiteSearch(),
        "pagefind": search_driver.Pagefind(),
        "material": search_driver.MaterialSearch(),
    }
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        for name, engine in engines.items():
            # Each site is built for the address it is served at (docverify.site.built_site).
            site = Path(tmp) / name
            with ExitStack() as stack:
                config = (
                    stack.enter_context(material_search_config()) if name == "material" else None
                )
                url = stack.enter_context(built_and_served(site, config))
                if name == "pagefind":
                    index_with_pagefind(site)
                results["ranks"][name] = {
                    kind: search_driver.ranks(engine, browser, url, cases[kind]) for kind in KINDS
                }
        browser.close()
    return results


# --- the summary the Verification page embeds ------------------------------------------------

ENGINE_NAMES = {
    "site": "this site's search (MiniSearch)",
    "material": "Material search",
    "pagefind": "Pagefind",
}
ENGINES = {"site": "MiniSearch", "material": "Material 的搜索", "pagefind": "Pagefind"}
ENGINE_NAMES_ZH = {
    "site": "本站搜索（MiniSearch）",
    "material": "Material 搜索",
    "pagefind": "Pagefind",
}
WORDS = {
    "en": {
        "engines": ENGINE_NAMES,
        "header": "| engine | cases | edition | number | rank 1 | top 3 |",
        "edition": {"en": "English", "zh": "简体中文"},
        "kind": {
            "lookups": "lookups",
            "questions": "held-out questions",
            "chinese_in_english": "held-out, typed in Chinese",
        },
        "other": "{name}: {rank1} at rank 1, {top3} in the top 3",
        "verdict": "On the held-out questions, both editions together, {best} ranks best: "
        "{rank1} at rank 1 and {top3} in the top 3 ({others}). The site uses {best}.",
        "join": "; ",
        "when": "Measured on {date} with the {cases} cases tests/search_cases.yaml held then "
        "({counts}); the browser test holds the site's search to its targets on today's cases.",
    },
    "zh": {
        "engines": ENGINE_NAMES_ZH,
        "header": "| 搜索引擎 | 用例 | 版本 | 数量 | 排第 1 | 前 3 |",
        "edition": {"en": "English", "zh": "简体中文"},
        "kind": {
            "lookups": "查找",
            "questions": "盲测问题",
            "chinese_in_english": "盲测中文查询",
        },
        "other": "{name}：排第 1 的 {rank1}，前 3 的 {top3}",
        # The table calls the site's engine 本站搜索; the last sentence names the engine itself.
        "verdict": "在盲测问题上（两个版本合计），{best} 排得最好：排第 1 的 {rank1}，"
        "前 3 的 {top3}（{others}）。本站的搜索框用的就是 {engine}。",
        "join": "；",
        "when": "测量于 {date}，用的是当时 tests/search_cases.yaml 中的 {cases} 个用例"
        "（{counts}）；浏览器测试按今天的用例检查本站搜索是否达到目标。",
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


def question_totals(data: dict, engine: str) -> tuple[int, int, int]:
    """(questions, at rank 1, in the top 3), both editions together."""
    totals = [scores(data, engine, "questions", lang) for lang in ("en", "zh")]
    return tuple(sum(t[i] for t in totals) for i in range(3))


def best_engine(data: dict) -> str:
    """The engine with the most held-out questions at rank 1 (then in the top 3)."""
    return max(ENGINE_NAMES, key=lambda e: question_totals(data, e)[1:])


def render_summary(data: dict, lang: str = "en") -> str:
    words = WORDS[lang]
    names = words["engines"]
    rows = [words["header"], "|---|---|---|---:|---:|---:|"]
    for engine in ENGINE_NAMES:
        for kind in KINDS:
            for edition in ("en", "zh"):
                n, top1, top3 = scores(data, engine, kind, edition)
                if n:
                    rows.append(
                        f"| {names[engine]} | {words['kind'][kind]} | "
                        f"{words['edition'][edition]} | {n} | {top1 / n:.0%} | {top3 / n:.0%} |"
                    )

    def counts(engine: str) -> dict[str, str]:
        n, top1, top3 = question_totals(data, engine)
        return {"rank1": f"{top1}/{n}", "top3": f"{top3}/{n}"}

    best = best_engine(data)
    others = words["join"].join(
        words["other"].format(name=names[e], **counts(e)) for e in ENGINE_NAMES if e != best
    )
    verdict = words["verdict"].format(
        best=names[best], engine=ENGINES[best], others=others, **counts(best)
    )
    if lang == "zh":  # full-width brackets carry their own space: "（MiniSearch）排得最好"
        verdict = re.sub(r"(?<=[）」])[ ]", "", verdict)
    counts = words["join"].join(
        f"{words['kind'][kind]} {len(data['cases'][kind])}" for kind in KINDS
    )
    cases = sum(len(data["cases"][kind]) for kind in KINDS)
    when = words["when"].format(date=data["measured"], cases=cases, counts=counts)
    return "\n".join([*rows, "", verdict, "", when, ""])


if __name__ == "__main__":
    raise SystemExit(measured.main(sys.argv[1:], sys.modules[__name__]))
