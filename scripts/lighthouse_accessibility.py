"""Lighthouse's performance, accessibility, best-practices and SEO scores of every page type,
in both editions.

    make lighthouse      (installs Lighthouse from tools/lighthouse/package.json with npm ci)

Builds the site for the address it serves it at on 127.0.0.1 (so its absolute
links, canonical and hreflang, are this server's), serves it gzip-compressed as a
static host does, and runs Lighthouse (pinned in tools/lighthouse/, with
Debian's chromium; its default mobile profile, which slows the CPU fourfold) with
those four categories on one page of each type in English and in 简体中文.
Performance depends on the machine: run it on a quiet one; each page's figure is the
median of three runs (PERFORMANCE_RUNS). Writes
docs/assets/generated/accessibility/lighthouse.json and the summary the
Verification page embeds; tests/test_measured_summaries.py re-renders the
summary from the data and holds every score to its category's target. In the
test suite the same pages are checked with axe-core on every run
(tests/test_accessibility.py), and in chromium for console errors and failed
requests (tests/test_site_console.py); Lighthouse is slower (seconds a page) and
runs here, by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # this checkout's docverify, whichever the venv's is

from docverify.site import measured  # noqa: E402
from docverify.site.built_site import PAGE_TYPES, built_and_served  # noqa: E402

LIGHTHOUSE = ROOT / "tools" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
OUT = ROOT / "docs" / "assets" / "generated" / "accessibility" / "lighthouse.json"
# Category: the lowest score it may have on any page.
TARGETS = {"performance": 90, "accessibility": 98, "best-practices": 100, "seo": 100}
TYPE_NAMES_ZH = {
    "home": "首页",
    "section index": "章节索引",
    "page with code and boxes": "含代码与提示框的页面",
    "page with figures": "含图片的页面",
    "error atlas page (the longest)": "报错页面（最长的一页）",
    "Errata (generated)": "勘误（生成）",
    "Verification (generated tables)": "验证（生成的表格）",
    "Tags": "标签",
}


# Performance varies from run to run on one machine (by up to eight points on the 2-core
# machine, 2026-12-07): each page's performance is the median of PERFORMANCE_RUNS runs,
# as Lighthouse's own documentation advises; the other categories do not vary.
PERFORMANCE_RUNS = 3


def lighthouse(url: str) -> dict:
    found = _run(url, list(TARGETS))
    runs = [found["scores"]["performance"]]
    runs += [
        _run(url, ["performance"])["scores"]["performance"] for _ in range(PERFORMANCE_RUNS - 1)
    ]
    found["scores"]["performance"] = sorted(runs)[len(runs) // 2]
    return {**found, "performance_runs": runs}


def _run(url: str, categories: list[str]) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(
            [str(LIGHTHOUSE), url, f"--only-categories={','.join(categories)}", "--output=json"]
            + [f"--output-path={report.name}", "--quiet"]
            + ["--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
            check=True,
            env={
                "CHROME_PATH": shutil.which("chromium") or "/usr/bin/chromium",
                "PATH": "/usr/bin:/bin",
            },
        )
        found = json.loads(Path(report.name).read_text(encoding="utf-8"))
    failed = sorted(
        key
        for key, audit in found["audits"].items()
        if audit.get("scoreDisplayMode") == "binary" and audit.get("score") == 0
    )
    return {
        "scores": {c: round(found["categories"][c]["score"] * 100) for c in categories},
        "failed_audits": failed,
        "lighthouse": found["lighthouseVersion"],
        "browser": found["environment"]["hostUserAgent"],
    }


def measure() -> dict:
    pages = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        built_and_served(Path(tmp) / "site", compressed=True) as url,
    ):
        for kind, path in PAGE_TYPES:
            for lang, prefix in (("en", ""), ("zh", "zh/")):
                result = lighthouse(f"{url}/{prefix}{path}")
                pages.append({"type": kind, "lang": lang, "path": prefix + path, **result})
                print(f"{result['scores']}  {prefix}{path}", file=sys.stderr)
    return {"targets": TARGETS, "pages": pages}


def lowest(data: dict) -> dict[str, int]:
    """Each category's lowest score over every page type and edition."""
    return {c: min(p["scores"][c] for p in data["pages"]) for c in data["targets"]}


def below_target(data: dict) -> list[str]:
    """`type [lang] category: score` for every score under its category's target."""
    return [
        f"{p['type']} [{p['lang']}] {c}: {p['scores'][c]}"
        for p in data["pages"]
        for c, target in data["targets"].items()
        if p["scores"][c] < target
    ]


WORDS = {
    "en": {
        "header": "| page type | performance | accessibility | best practices | SEO |",
        "editions": "English / 简体中文 in each cell.",
        "category": {
            "performance": "performance",
            "accessibility": "accessibility",
            "best-practices": "best practices",
            "seo": "SEO",
        },
        "low": "{category} {low} (target: at least {target})",
        "verdict": "Lowest scores: {lows}; Lighthouse {version}.",
    },
    "zh": {
        "header": "| 页面类型 | 性能 | 无障碍 | 最佳实践 | SEO |",
        "editions": "每格为 English / 简体中文。",
        "category": {
            "performance": "性能",
            "accessibility": "无障碍",
            "best-practices": "最佳实践",
            "seo": "SEO",
        },
        "low": "{category} {low}（目标：不低于 {target}）",
        "verdict": "最低分：{lows}；Lighthouse {version}。",
    },
}


def render_summary(data: dict, lang: str = "en") -> str:
    words = WORDS[lang]
    rows = [words["header"], "|---|" + "---:|" * len(data["targets"])]
    for kind, _ in PAGE_TYPES:
        score = {p["lang"]: p["scores"] for p in data["pages"] if p["type"] == kind}
        name = kind if lang == "en" else TYPE_NAMES_ZH[kind]
        cells = [f"{score['en'][c]} / {score['zh'][c]}" for c in data["targets"]]
        rows.append(f"| {name} | {' | '.join(cells)} |")
    lows = ("; " if lang == "en" else "；").join(
        words["low"].format(category=words["category"][c], low=low, target=data["targets"][c])
        for c, low in lowest(data).items()
    )
    version = data["pages"][0]["lighthouse"]
    verdict = words["verdict"].format(lows=lows, version=version)
    return "\n".join([*rows, "", words["editions"], "", verdict, ""])


if __name__ == "__main__":
    raise SystemExit(measured.main(sys.argv[1:], sys.modules[__name__]))
