"""Benchmark numbers in the prose come from the committed benchmark data, and the verdicts hold.

A page that rests on a benchmark embeds a generated fragment
(docs/assets/generated/<section>/<name>_summary.md) rendered from the committed
data by a function of the benchmark script. These tests render it again from
the committed data and compare, check that the page types none of the numbers
itself, and assert the direction of every verdict the page (and the fragment's
fixed wording) states, so that a new measurement that contradicts the prose
fails here instead of being published. Each fragment has a Chinese twin
(<name>_summary.zh.md, for the zh pages) rendered by the same function with
lang="zh": both are compared, and both must state the asserted verdicts.

The benchmarks themselves are never run here (they are `make bench-*` targets).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from types import ModuleType

import pytest

from docverify.paths import REPO_ROOT

GENERATED = REPO_ROOT / "docs/assets/generated"


def _benchmark(name: str) -> ModuleType:
    """Import benchmarks/<name>.py (not a package) without running its main()."""
    path = REPO_ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


# --- Conv1d(k=1) vs Linear (docs/models/conv1d_linear.md) --------------------------------------

CONV1D_PAGE = REPO_ROOT / "docs/models/conv1d_linear.md"
CONV1D_TABLE = GENERATED / "models/conv1d_linear_table.txt"
CONV1D_SUMMARY = GENERATED / "models/conv1d_linear_summary.md"
# One summary per edition of the site: the zh pages embed the .zh.md twin.
CONV1D_SUMMARIES = {
    "en": CONV1D_SUMMARY,
    "zh": GENERATED / "models/conv1d_linear_summary.zh.md",
}
# The verdicts the committed summaries state, in each language's wording; each is asserted
# against the table in test_conv1d_verdicts_hold_in_the_committed_data.
CONV1D_VERDICT_WORDS = {
    "en": [
        '"linear\'s time stays about the same as the input grows": does not hold.**',
        '"conv1d\'s time grows with the input": holds.**',
        '"conv1d(k=1) is faster for small inputs": does not hold; it is the reverse.**',
        ", not more so for large inputs.**",
        "the ratio at the largest size was below the one at the smallest.",
    ],
    "zh": [
        "“改变输入大小时，linear 所需时间基本不变”：不成立。**",
        "“conv1d 的时间会随着输入的增大而增大”：成立。**",
        "“输入较小时，conv1d(k=1) 比 linear 计算更快”：不成立，恰恰相反。**",
        "更慢，但输入大时并没有慢得更多。**",
        "最大尺寸下的比值低于最小尺寸下的比值。",
    ],
}
# The same claims' "holds" wording, which a table contradicting the prose renders.
CONV1D_HOLDS_WORDS = {
    "en": [
        '"linear\'s time stays about the same as the input grows": holds.**',
        '"conv1d(k=1) is faster for small inputs": holds.**',
    ],
    "zh": [
        "“改变输入大小时，linear 所需时间基本不变”：成立。**",
        "“输入较小时，conv1d(k=1) 比 linear 计算更快”：成立。**",
    ],
}


@pytest.fixture(scope="module")
def conv1d():
    return _benchmark("conv1d_linear")


@pytest.fixture(scope="module")
def table(conv1d):
    return conv1d.read_table(CONV1D_TABLE.read_text(encoding="utf-8"))


def test_conv1d_summaries_are_written_for_every_language(conv1d) -> None:
    # The script writes (and --summary-only re-renders) one summary per language, here.
    assert tuple(CONV1D_SUMMARIES) == conv1d.LANGS
    assert {lang: conv1d.summary_path(lang) for lang in conv1d.LANGS} == CONV1D_SUMMARIES


@pytest.mark.parametrize("lang", list(CONV1D_SUMMARIES))
def test_conv1d_summary_is_rendered_from_the_committed_table(conv1d, lang: str) -> None:
    path = CONV1D_SUMMARIES[lang]
    rendered = conv1d.render_summary(CONV1D_TABLE.read_text(encoding="utf-8"), lang)
    assert path.is_file(), f"{path.relative_to(REPO_ROOT)} is missing"
    assert path.read_text(encoding="utf-8") == rendered, (
        f"{path.relative_to(REPO_ROOT)} is stale: run "
        "`.venv/bin/python benchmarks/conv1d_linear.py --summary-only`"
    )


@pytest.mark.parametrize("lang", list(CONV1D_SUMMARIES))
def test_conv1d_committed_summary_states_the_asserted_verdicts(lang: str) -> None:
    path = CONV1D_SUMMARIES[lang]
    summary = path.read_text(encoding="utf-8")
    missing = [words for words in CONV1D_VERDICT_WORDS[lang] if words not in summary]
    assert not missing, f"{path.relative_to(REPO_ROOT)} does not state: {missing}"
    contradicting = [words for words in CONV1D_HOLDS_WORDS[lang] if words in summary]
    assert not contradicting, f"{path.relative_to(REPO_ROOT)} states: {contradicting}"


def test_conv1d_table_parse_loses_nothing(conv1d, table) -> None:
    # Every measurement line of the table is read back exactly (so the summary sees the data).
    row_lines = [
        line
        for line in CONV1D_TABLE.read_text(encoding="utf-8").splitlines()
        if line.startswith("| (")
    ]
    assert [row.text() for row in table.rows] == row_lines
    assert [row.length for row in table.rows] == conv1d.LENGTHS


def test_conv1d_page_embeds_table_and_summary_as_bare_lines() -> None:
    lines = CONV1D_PAGE.read_text(encoding="utf-8").splitlines()
    for path in (CONV1D_TABLE, CONV1D_SUMMARY):
        assert f'--8<-- "{path.relative_to(REPO_ROOT).as_posix()}"' in lines


def _numbers_in(table) -> set[str]:
    """Every number the data gives, as the table and summary print them."""
    found = set()
    for row in table.rows:
        found |= {f"{row.linear_us:,}", f"{row.conv_us:,}", f"{row.permuted_us:,}"}
        found |= {f"{row.conv_ratio:.2f}", f"{row.permuted_ratio:.2f}"}
    small, large = table.rows[0], table.rows[-1]
    found |= {f"{large.linear_us / small.linear_us:,.0f}", f"{large.conv_us / small.conv_us:,.0f}"}
    return found


def test_conv1d_page_types_no_measured_number(table) -> None:
    # Numbers in the prose come from the fragment; the page itself states directions only.
    prose = CONV1D_PAGE.read_text(encoding="utf-8")
    typed = sorted(
        n for n in _numbers_in(table) if re.search(rf"(?<![\d.,]){re.escape(n)}(?![\d])", prose)
    )
    assert not typed, f"measured numbers typed into {CONV1D_PAGE.name}: {typed}"
    for vague in ("thousand", "mildly", "idle"):
        assert vague not in prose.lower(), f"{CONV1D_PAGE.name} says {vague!r}: use the fragment"


def test_conv1d_verdicts_hold_in_the_committed_data(table) -> None:
    rows = table.rows
    small, second, before_large, large = rows[0], rows[1], rows[-2], rows[-1]
    # "Linear's time grows with the input like Conv1d's" (correction box; 'does not hold')
    assert large.linear_us / small.linear_us > 10
    # "conv1d's time grows with the input: holds"
    assert large.conv_us / small.conv_us > 10
    # "It grew less than Linear, which fits a fixed cost per call": the premise, not a cause
    assert large.conv_us / small.conv_us < large.linear_us / small.linear_us
    assert second.conv_us / small.conv_us < 2 <= second.length // small.length
    # "Conv1d was slower than Linear for the smallest inputs, not faster"
    assert small.conv_ratio > 1 and small.permuted_ratio > 1
    # "much slower for large inputs: slower ..., not more so for large inputs"
    assert large.conv_ratio > 1 and large.permuted_ratio > 1
    assert large.conv_ratio < small.conv_ratio
    # "For large inputs both grow roughly in proportion to the rows"
    more_rows = large.length // before_large.length
    for before, after in [
        (before_large.linear_us, large.linear_us),
        (before_large.conv_us, large.conv_us),
    ]:
        assert more_rows / 2 <= after / before <= more_rows * 2
    # "Conv1d on the permute view was slower than on a contiguous tensor ... extra work"
    assert sum(r.permuted_us > r.conv_us for r in rows) > len(rows) / 2
    # "The Conv1d / Linear ratio goes up and down with L"
    ratios = [r.conv_ratio for r in rows]
    assert ratios != sorted(ratios) and ratios != sorted(ratios, reverse=True)


@pytest.mark.parametrize("lang", list(CONV1D_SUMMARIES))
def test_conv1d_summary_flags_what_the_data_would_contradict(conv1d, lang: str) -> None:
    # The rendered verdict words follow the data, in every language: a table where Conv1d
    # wins for small inputs and Linear stays constant renders "holds" for those claims.
    text = CONV1D_TABLE.read_text(encoding="utf-8")
    flipped = text.replace(
        "| (8, 4, 256) | 171 µs | 495 µs | 511 µs | 2.90 | 2.99 |",
        "| (8, 4, 256) | 124,000 µs | 95 µs | 111 µs | 0.50 | 0.60 |",
    )
    assert flipped != text
    summary = conv1d.render_summary(flipped, lang)
    for words in CONV1D_HOLDS_WORDS[lang]:
        assert words in summary
    assert CONV1D_VERDICT_WORDS[lang][0] not in summary
    assert CONV1D_VERDICT_WORDS[lang][2] not in summary
