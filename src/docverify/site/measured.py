"""A measurement the site shows: its data, committed as JSON, and a summary per language.

scripts/compare_search.py and scripts/lighthouse_accessibility.py measure,
write `<name>.json`, and render from it `<name>_summary.md` and its Chinese
twin `<name>_summary.zh.md`, which the Verification page embeds;
tests/test_measured_summaries.py re-renders them from the committed data.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import ModuleType

from docverify.i18n import languages


def summary_path(out: Path, lang: str) -> Path:
    """`comparison.json` -> `comparison_summary.md` (English) or `comparison_summary.zh.md`."""
    return Path(languages.twin(out.with_name(f"{out.stem}_summary.md"), lang))


def main(argv: list[str], script: ModuleType) -> int:
    """Run a measuring script: its `measure()` (unless --render-only) into its `OUT`, then
    its `render_summary(data, lang)` for every language. Its docstring is the help."""
    parser = argparse.ArgumentParser(description=(script.__doc__ or "").splitlines()[0])
    parser.add_argument("--render-only", action="store_true", help="re-render the summaries")
    out: Path = script.OUT
    if not parser.parse_args(argv).render_only:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(script.measure(), ensure_ascii=False, indent=1) + "\n", "utf-8")
    data = json.loads(out.read_text(encoding="utf-8"))
    for lang in languages.LANGUAGES:
        summary_path(out, lang).write_text(script.render_summary(data, lang), encoding="utf-8")
    print(summary_path(out, languages.DEFAULT).read_text(encoding="utf-8"))
    return 0
