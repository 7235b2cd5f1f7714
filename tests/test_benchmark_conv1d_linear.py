"""Benchmark numbers in the prose come from the committed benchmark data, and the verdicts hold.

A page that rests on a benchmark embeds a generated fragment
(docs/assets/generated/<section>/<name>_summary.md) rendered from the committed
data by a function of the benchmark script. These tests render it again from
the committed data and compare, check that the page types none of the numbers
itself, and assert the direction of every verdict the page (and the fragment's
fixed wording) states, so that a new measurement that contradicts the prose
fails here instead of being published.

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


@pytest.fixture(scope="module")
def conv1d():
    return _benchmark("conv1d_linear")


@pytest.fixture(scope="module")
def table(conv1d):
    return conv1d.read_table(CONV1D_TABLE.read_text(encoding="utf-8"))


def test_conv1d_summary_is_rendered_from_the_committed_table(conv1d) -> None:
    rendered = conv1d.render_summary(CONV1D_TABLE.read_text(encoding="utf-8"))
    assert CONV1D_SUMMARY.read_text(encoding="utf-8") == rendered, (
        f"{CONV1D_SUMMARY.relative_to(REPO_ROOT)} is stale: run "
        "`.venv/bin/python benchmarks/conv1d_linear.py --summary-only`"
    )


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
    # "It grew less than Linear because small inputs carry a fixed cost per call"
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


def test_conv1d_summary_flags_what_the_data_would_contradict(conv1d) -> None:
    # The rendered verdict words follow the data: a table where Conv1d wins for small inputs
    # and Linear stays constant renders "holds" for those claims.
    text = CONV1D_TABLE.read_text(encoding="utf-8")
    flipped = text.replace(
        "| (8, 4, 256) | 171 µs | 495 µs | 511 µs | 2.90 | 2.99 |",
        "| (8, 4, 256) | 124,000 µs | 95 µs | 111 µs | 0.50 | 0.60 |",
    )
    summary = conv1d.render_summary(flipped)
    assert 'stays about the same as the input grows": holds' in summary
    assert 'faster for small inputs": holds' in summary
