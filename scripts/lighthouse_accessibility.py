"""Lighthouse's accessibility score of every page type, in both editions.

    make lighthouse      (installs Lighthouse from tools/lighthouse/package.json with npm ci)

Builds the site, serves it on 127.0.0.1, and runs Lighthouse (pinned in
tools/lighthouse/, with Debian's chromium) with only the accessibility
category on one page of each type in English and in 简体中文. Writes
docs/assets/generated/accessibility/lighthouse.json and the summary the
Verification page embeds; tests/test_measured_summaries.py re-renders the
summary from the data and holds every score to the target. In the test suite
the same pages are checked with axe-core on every run (tests/test_accessibility.py);
Lighthouse is slower (seconds a page) and runs here, by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from docverify import measured
from docverify.built_site import PAGE_TYPES, build, served

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "tools" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
OUT = ROOT / "docs" / "assets" / "generated" / "accessibility" / "lighthouse.json"
TARGET = 98
TYPE_NAMES_ZH = {
    "home": "首页",
    "section index": "章节索引",
    "page with code and boxes": "含代码与提示框的页面",
    "page with figures": "含图片的页面",
    "Errata (generated)": "勘误（生成）",
    "Verification (generated tables)": "验证（生成的表格）",
    "Tags": "标签",
}


def lighthouse(url: str) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(
            [str(LIGHTHOUSE), url, "--only-categories=accessibility", "--output=json"]
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
        "score": round(found["categories"]["accessibility"]["score"] * 100),
        "failed_audits": failed,
        "lighthouse": found["lighthouseVersion"],
        "browser": found["environment"]["hostUserAgent"],
    }


def measure() -> dict:
    pages = []
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(site)
        with served(site) as url:
            for kind, path in PAGE_TYPES:
                for lang, prefix in (("en", ""), ("zh", "zh/")):
                    result = lighthouse(f"{url}/{prefix}{path}")
                    pages.append({"type": kind, "lang": lang, "path": prefix + path, **result})
                    print(f"{result['score']:>4}  {prefix}{path}", file=sys.stderr)
    return {"target": TARGET, "pages": pages}


WORDS = {
    "en": {
        "header": "| page type | English | 简体中文 |",
        "verdict": "Lowest score: {low} (target: at least {target}), Lighthouse {version}.",
    },
    "zh": {
        "header": "| 页面类型 | English | 简体中文 |",
        "verdict": "最低分：{low}（目标：不低于 {target}），Lighthouse {version}。",
    },
}


def render_summary(data: dict, lang: str = "en") -> str:
    words = WORDS[lang]
    rows = [words["header"], "|---|---:|---:|"]
    for kind, _ in PAGE_TYPES:
        score = {p["lang"]: p["score"] for p in data["pages"] if p["type"] == kind}
        name = kind if lang == "en" else TYPE_NAMES_ZH[kind]
        rows.append(f"| {name} | {score['en']} | {score['zh']} |")
    low = min(p["score"] for p in data["pages"])
    version = data["pages"][0]["lighthouse"]
    verdict = words["verdict"].format(low=low, target=data["target"], version=version)
    return "\n".join([*rows, "", verdict, ""])


if __name__ == "__main__":
    raise SystemExit(measured.main(sys.argv[1:], sys.modules[__name__]))
