"""Sweep: Conv1d(kernel_size=1) vs Linear over growing inputs (docs/models/conv1d_linear.md).

Run with `make bench-conv1d-linear` (or `.venv/bin/python benchmarks/conv1d_linear.py`;
`--threads 1` for a steadier single-thread measurement on a busy machine).
Writes, for the page to embed:
  docs/assets/generated/models/conv1d_linear.png         time per call and ratio, per size
  docs/assets/generated/models/conv1d_linear_table.txt   the measured numbers, a Markdown table
  docs/assets/generated/models/conv1d_linear_summary.md  the page's verdicts, rendered from the table
Each size is timed with torch.utils.benchmark in one run (medians of blocked_autorange),
so the ratios compare the layers under the same conditions. About a minute on 2 cores.

The table is the data of record: the summary is rendered from the table's text
(`render_summary`), never from the measurements directly, so that
tests/test_benchmark_conv1d_linear.py can re-render it from the committed table and
compare. `--summary-only` re-renders the summary from the committed table
without measuring anything.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import time
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils import benchmark

from docverify.machine import describe_machine
from docverify.paths import GENERATED_DIR, REPO_ROOT
from docverify.snippets import sections_module

IN_FEATURES, OUT_FEATURES, BATCH = 256, 512, 8  # the notes' layer sizes: Linear(256, 512)
LENGTHS = [4, 16, 64, 256, 1024, 4096]  # positions per sample; rows = BATCH * length
TABLE = GENERATED_DIR / "models" / "conv1d_linear_table.txt"
PAGE_SNIPPET = REPO_ROOT / "snippets" / "models" / "conv1d_linear.py"
SUMMARY = GENERATED_DIR / "models" / "conv1d_linear_summary.md"


# --- measuring ---------------------------------------------------------------------------------


def matched_pair(in_features: int, out_features: int) -> tuple[nn.Linear, nn.Conv1d]:
    """The page's own `matched_pair` (its `equivalence` section, which needs `setup` and
    `shapes`): a Linear and a Conv1d(kernel_size=1) that compute the same function."""
    with contextlib.redirect_stdout(io.StringIO()):  # the sections' own prints
        page = sections_module(PAGE_SNIPPET, "setup", "shapes", "equivalence")
    return page.matched_pair(in_features, out_features)


def time_pair(
    linear: nn.Linear, conv: nn.Conv1d, x_nlc: torch.Tensor, min_run_time: float
) -> tuple[float, float, float]:
    """Median seconds per call: Linear on (N, L, C), Conv1d on contiguous (N, C, L), on a view."""
    x_ncl = x_nlc.permute(0, 2, 1).contiguous()
    x_permuted = x_nlc.permute(0, 2, 1)  # a strided view, what the notes fed to Conv1d
    globals_ = {"linear": linear, "conv": conv, "a": x_nlc, "b": x_ncl, "c": x_permuted}
    medians = []
    with torch.no_grad():
        for _ in range(3):  # warm-up: first calls pick kernels and allocate
            linear(x_nlc), conv(x_ncl), conv(x_permuted)
        for stmt in ("linear(a)", "conv(b)", "conv(c)"):
            timer = benchmark.Timer(
                stmt=stmt, globals=globals_, num_threads=torch.get_num_threads()
            )
            medians.append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return medians[0], medians[1], medians[2]


def sweep(min_run_time: float) -> list[tuple[int, tuple[float, float, float]]]:
    torch.manual_seed(0)
    linear, conv = matched_pair(IN_FEATURES, OUT_FEATURES)
    results = []
    for length in LENGTHS:
        x = torch.randn(BATCH, length, IN_FEATURES)
        results.append((length, time_pair(linear, conv, x, min_run_time=min_run_time)))
        print(f"L={length:5}  {results[-1][1]}", flush=True)
    return results


def table_text(results, machine: str, seconds: float, load: tuple[float, float] | None) -> str:
    lines = [
        "| input (N, L, C) | Linear | Conv1d, contiguous (N, C, L) | Conv1d on `permute` view "
        "| Conv1d / Linear | Conv1d (`permute`) / Linear |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for length, (linear_s, conv_s, permuted_s) in results:
        lines.append(
            f"| ({BATCH}, {length}, {IN_FEATURES}) | {linear_s * 1e6:,.0f} µs "
            f"| {conv_s * 1e6:,.0f} µs | {permuted_s * 1e6:,.0f} µs "
            f"| {conv_s / linear_s:.2f} | {permuted_s / linear_s:.2f} |"
        )
    lines += [
        "",
        f"Median time per call, `torch.no_grad()`, Linear({IN_FEATURES}, {OUT_FEATURES}) vs "
        f"Conv1d({IN_FEATURES}, {OUT_FEATURES}, 1) with identical weights. "
        f"Measured by `benchmarks/conv1d_linear.py` in {seconds:.0f} s on: {machine}.",
    ]
    if load is not None:
        lines += [
            "",
            f"Load average (1 min) at the start and end of the run: {load[0]:.2f}, {load[1]:.2f}.",
        ]
    return "\n".join(lines) + "\n"


def plot(rows: list[Row], machine: str) -> None:
    import matplotlib.pyplot as plt

    from docverify.figures import save_figure

    lengths = [row.length for row in rows]
    fig, (ax_time, ax_ratio) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = [
        ("Linear on (N, L, C)", [row.linear_us for row in rows]),
        ("Conv1d on contiguous (N, C, L)", [row.conv_us for row in rows]),
        ("Conv1d on x.permute(0, 2, 1)", [row.permuted_us for row in rows]),
    ]
    for label, micros in series:
        ax_time.loglog(lengths, micros, marker="o", label=label)
    ax_time.set(xlabel=f"L (input is {BATCH} x L x {IN_FEATURES})", ylabel="µs per call")
    ax_time.set_title("Time per call (median)")
    ax_time.legend()
    ax_ratio.semilogx(lengths, [row.conv_ratio for row in rows], marker="o", label="contiguous")
    ax_ratio.semilogx(
        lengths, [row.permuted_ratio for row in rows], marker="o", label="permute view"
    )
    ax_ratio.axhline(1.0, color="grey", linewidth=1)
    ax_ratio.set_yscale("log")
    ax_ratio.set(xlabel="L", ylabel="Conv1d time / Linear time")
    ax_ratio.set_title("Ratio (> 1: Conv1d slower)")
    ax_ratio.legend()
    fig.suptitle(machine, fontsize=8)
    save_figure(fig, "models/conv1d_linear")
    plt.close(fig)


# --- the committed table, read back --------------------------------------------------------------

_ROW = re.compile(
    r"^\| \((?P<n>\d+), (?P<length>\d+), (?P<c>\d+)\) "
    r"\| (?P<linear>[\d,]+) µs \| (?P<conv>[\d,]+) µs \| (?P<permuted>[\d,]+) µs "
    r"\| (?P<conv_ratio>[\d.]+) \| (?P<permuted_ratio>[\d.]+) \|$"
)
_MACHINE = re.compile(r"Measured by `[^`]+` in (?P<seconds>\d+) s on: (?P<machine>.+)\.$")
_LOAD = re.compile(
    r"^Load average \(1 min\) at the start and end of the run: ([\d.]+), ([\d.]+)\.$"
)


@dataclass(frozen=True)
class Row:
    length: int  # L; the input is (BATCH, L, IN_FEATURES)
    linear_us: int  # median µs per call, as printed in the table
    conv_us: int
    permuted_us: int
    conv_ratio: float  # Conv1d (contiguous) / Linear, as printed (from the unrounded times)
    permuted_ratio: float

    def text(self) -> str:
        """The table line this row was read from (used to prove the parse loses nothing)."""
        return (
            f"| ({BATCH}, {self.length}, {IN_FEATURES}) | {self.linear_us:,} µs "
            f"| {self.conv_us:,} µs | {self.permuted_us:,} µs "
            f"| {self.conv_ratio:.2f} | {self.permuted_ratio:.2f} |"
        )


@dataclass(frozen=True)
class Table:
    rows: list[Row]
    machine: str  # the describe_machine() line of the run
    threads: int
    load: tuple[float, float] | None  # 1-minute load average at start and end, if recorded


def read_table(text: str) -> Table:
    rows = []
    machine = threads = load = None
    for line in text.splitlines():
        if match := _ROW.match(line):
            assert (int(match["n"]), int(match["c"])) == (BATCH, IN_FEATURES), line
            rows.append(
                Row(
                    int(match["length"]),
                    int(match["linear"].replace(",", "")),
                    int(match["conv"].replace(",", "")),
                    int(match["permuted"].replace(",", "")),
                    float(match["conv_ratio"]),
                    float(match["permuted_ratio"]),
                )
            )
        elif match := _MACHINE.search(line):
            machine = match["machine"]
            threads = int(re.search(r"torch threads: (\d+)", machine)[1])
        elif match := _LOAD.match(line):
            load = (float(match[1]), float(match[2]))
    if not rows or machine is None:
        raise ValueError("not a conv1d_linear table: no rows or no machine line")
    return Table(rows, machine, threads, load)


# --- the page's verdicts, from the table ------------------------------------------------------


def _times(x: float) -> str:
    return f"{x:,.0f}×" if x >= 10 else f"{x:.2f}×"


def _span(values: list[float]) -> str:
    return f"{min(values):.2f} to {max(values):.2f}"


def render_summary(table_text: str) -> str:
    """The Markdown fragment the page embeds: every number in its verdicts comes from the table."""
    table = read_table(table_text)
    rows = table.rows
    small, second, before_large, large = rows[0], rows[1], rows[-2], rows[-1]
    more_rows = large.length // small.length
    linear_growth = large.linear_us / small.linear_us
    conv_growth = large.conv_us / small.conv_us
    slower = [r for r in rows if r.conv_ratio > 1]
    permuted_slower = [r for r in rows if r.permuted_us > r.conv_us]
    faster_small = small.conv_ratio < 1
    lines = [
        f'- **"linear\'s time stays about the same as the input grows": '
        f"{'holds' if linear_growth < 2 else 'does not hold'}.** `Linear` took "
        f"{small.linear_us:,} µs at L={small.length} and {large.linear_us:,} µs at "
        f"L={large.length}: {_times(linear_growth)} the time for {more_rows:,}× the rows.",
        f'- **"conv1d\'s time grows with the input": '
        f"{'holds' if conv_growth >= 2 else 'does not hold'}.** `Conv1d` (contiguous input) "
        f"took {_times(conv_growth)} the time for {more_rows:,}× the rows "
        f"({small.conv_us:,} µs to {large.conv_us:,} µs). It grew less than `Linear` because "
        f"small inputs carry a fixed cost per call: {small.conv_us:,} µs at L={small.length} "
        f"and {second.conv_us:,} µs at L={second.length}, {_times(second.conv_us / small.conv_us)} "
        f"the time for {second.length // small.length}× the rows.",
        f'- **"conv1d(k=1) is faster for small inputs": '
        f"{'holds' if faster_small else 'does not hold; it is the reverse'}.** At L={small.length} "
        f"`Conv1d` took {small.conv_ratio:.2f}× the time of `Linear` on a contiguous input, "
        f"{small.permuted_ratio:.2f}× on the notes' `permute` view.",
        f'- **"conv1d is much slower for large inputs": slower '
        f"{'at every size' if len(slower) == len(rows) else f'at {len(slower)} of {len(rows)} sizes'}"
        f", not more so for large inputs.** At L={large.length} `Conv1d` took "
        f"{large.conv_ratio:.2f}× the time of `Linear` on a contiguous input and "
        f"{large.permuted_ratio:.2f}× on the notes' `permute` view; over all sizes the ratios "
        f"were {_span([r.conv_ratio for r in rows])} (contiguous) and "
        f"{_span([r.permuted_ratio for r in rows])} (`permute` view), and the ratio at the "
        f"largest size was {'below' if large.conv_ratio < small.conv_ratio else 'above'} "
        f"the one at the smallest.",
        f"- For large inputs both grow roughly in proportion to the rows: from "
        f"L={before_large.length} to L={large.length} ({large.length // before_large.length}× "
        f"the rows) `Linear` took {_times(large.linear_us / before_large.linear_us)} and "
        f"`Conv1d` {_times(large.conv_us / before_large.conv_us)} the time.",
        f"- `Conv1d` on the **`permute` view** was slower than on a contiguous tensor at "
        f"{len(permuted_slower)} of {len(rows)} sizes (by "
        f"{_span([r.permuted_us / r.conv_us for r in rows])}×): a strided input costs "
        f"extra work.",
        "",
        f"The Conv1d / Linear ratio goes up and down with L "
        f"({', '.join(f'{r.conv_ratio:.2f}' for r in rows)}), so single factors from this one "
        f"run are rough: rely on the directions above, not on the second digit. The run used "
        f"{table.threads} torch thread{'s' if table.threads != 1 else ''} "
        f"({table.machine}); "
        + (
            f"the 1-minute load average was {table.load[0]:.2f} at its start and "
            f"{table.load[1]:.2f} at its end."
            if table.load
            else "it did not record the machine's load, so nothing here says the machine was idle."
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-run-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's own choice)"
    )
    parser.add_argument(
        "--summary-only",
        action="store_true",
        help="re-render the summary from the committed table; measure nothing",
    )
    args = parser.parse_args()
    if not args.summary_only:
        if args.threads:
            torch.set_num_threads(args.threads)  # 1 is steadier on a busy machine
        machine = f"{describe_machine()} · {os.cpu_count()} CPUs"
        print(machine)
        load_start = os.getloadavg()[0]
        start = time.perf_counter()
        results = sweep(args.min_run_time)
        seconds = time.perf_counter() - start
        TABLE.parent.mkdir(parents=True, exist_ok=True)
        TABLE.write_text(
            table_text(results, machine, seconds, (load_start, os.getloadavg()[0])),
            encoding="utf-8",
        )
        plot(read_table(TABLE.read_text(encoding="utf-8")).rows, machine)
    SUMMARY.write_text(render_summary(TABLE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {SUMMARY}" + ("" if args.summary_only else f", {TABLE} and the plot"))


if __name__ == "__main__":
    main()
