"""Sweep: Conv1d(kernel_size=1) vs Linear over growing inputs (docs/models/conv1d-linear.md).

Run with `make bench-conv1d-linear` (or `.venv/bin/python benchmarks/conv1d_vs_linear.py`;
`--threads 1` for a steadier single-thread measurement on a busy machine).
Writes, for the page to embed:
  docs/assets/generated/models/conv1d_vs_linear.png        time per call and ratio, per size
  docs/assets/generated/models/conv1d_vs_linear_table.txt  the same numbers as a Markdown table
Each size is timed with torch.utils.benchmark in one run (medians of blocked_autorange),
so the ratios compare the layers under the same conditions. About a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import time

import matplotlib.pyplot as plt
import torch

from docverify.figures import save_figure
from docverify.machine import describe_machine
from docverify.paths import GENERATED_DIR
from ptnotes.models_conv1d_linear import Timing, matched_pair, time_pair

IN_FEATURES, OUT_FEATURES, BATCH = 256, 512, 8  # the notes' layer sizes: Linear(256, 512)
LENGTHS = [4, 16, 64, 256, 1024, 4096]  # positions per sample; rows = BATCH * length
TABLE = GENERATED_DIR / "models" / "conv1d_vs_linear_table.txt"


def sweep(min_run_time: float) -> list[tuple[int, Timing]]:
    torch.manual_seed(0)
    linear, conv = matched_pair(IN_FEATURES, OUT_FEATURES)
    results = []
    for length in LENGTHS:
        x = torch.randn(BATCH, length, IN_FEATURES)
        results.append((length, time_pair(linear, conv, x, min_run_time=min_run_time)))
        print(f"L={length:5}  {results[-1][1]}", flush=True)
    return results


def write_table(results: list[tuple[int, Timing]], machine: str, seconds: float) -> None:
    lines = [
        "| input (N, L, C) | Linear | Conv1d, contiguous (N, C, L) | Conv1d on `permute` view "
        "| Conv1d / Linear | Conv1d (`permute`) / Linear |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for length, t in results:
        lines.append(
            f"| ({BATCH}, {length}, {IN_FEATURES}) | {t.linear_s * 1e6:,.0f} µs "
            f"| {t.conv_s * 1e6:,.0f} µs | {t.conv_permuted_s * 1e6:,.0f} µs "
            f"| {t.conv_over_linear:.2f} | {t.conv_permuted_over_linear:.2f} |"
        )
    lines += ["", *verdict(results), ""]
    lines += [
        f"Median time per call, `torch.no_grad()`, Linear({IN_FEATURES}, {OUT_FEATURES}) vs "
        f"Conv1d({IN_FEATURES}, {OUT_FEATURES}, 1) with identical weights. "
        f"Measured by `benchmarks/conv1d_vs_linear.py` in {seconds:.0f} s on: {machine}.",
    ]
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def verdict(results: list[tuple[int, Timing]]) -> list[str]:
    """The notes' claims, judged from these numbers (so the page's verdict follows the data)."""
    (l_small, small), (l_large, large) = results[0], results[-1]
    rows = l_large // l_small

    def growth(name: str, before: float, after: float) -> str:
        trend = "grows with the input" if after / before > 10 else "stays roughly constant"
        return f"- {name}: {after / before:,.0f}x the time for {rows:,}x the rows: it {trend}."

    def compare(length: int, t: Timing) -> str:
        word = "faster" if t.conv_over_linear < 1 else "slower"
        return f"at L={length} Conv1d is {word} (ratio {t.conv_over_linear:.2f})"

    return [
        growth("Linear", small.linear_s, large.linear_s),
        growth("Conv1d (contiguous input)", small.conv_s, large.conv_s),
        f"- Conv1d vs Linear: {compare(l_small, small)}; {compare(l_large, large)}.",
    ]


def plot(results: list[tuple[int, Timing]], machine: str) -> None:
    lengths = [length for length, _ in results]
    fig, (ax_time, ax_ratio) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = [
        ("Linear on (N, L, C)", [t.linear_s for _, t in results]),
        ("Conv1d on contiguous (N, C, L)", [t.conv_s for _, t in results]),
        ("Conv1d on x.permute(0, 2, 1)", [t.conv_permuted_s for _, t in results]),
    ]
    for label, seconds in series:
        ax_time.loglog(lengths, [s * 1e6 for s in seconds], marker="o", label=label)
    ax_time.set(xlabel=f"L (input is {BATCH} x L x {IN_FEATURES})", ylabel="µs per call")
    ax_time.set_title("Time per call (median)")
    ax_time.legend()
    ax_ratio.semilogx(
        lengths, [t.conv_over_linear for _, t in results], marker="o", label="contiguous"
    )
    ax_ratio.semilogx(
        lengths, [t.conv_permuted_over_linear for _, t in results], marker="o", label="permute view"
    )
    ax_ratio.axhline(1.0, color="grey", linewidth=1)
    ax_ratio.set_yscale("log")
    ax_ratio.set(xlabel="L", ylabel="Conv1d time / Linear time")
    ax_ratio.set_title("Ratio (> 1: Conv1d slower)")
    ax_ratio.legend()
    fig.suptitle(machine, fontsize=8)
    save_figure(fig, "models/conv1d_vs_linear")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-run-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's own choice)"
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)  # 1 is steadier on a busy machine
    machine = describe_machine()
    print(machine)
    start = time.perf_counter()
    results = sweep(args.min_run_time)
    seconds = time.perf_counter() - start
    write_table(results, machine, seconds)
    plot(results, machine)
    print(f"wrote {TABLE} and the plot in {seconds:.0f} s")


if __name__ == "__main__":
    main()
