"""Sweep: Conv1d(kernel_size=1) vs Linear over growing inputs (docs/models/conv1d_linear.md).

Run with `make bench-conv1d-linear` (or `.venv/bin/python benchmarks/conv1d_linear.py`;
`--threads 1` for a steadier single-thread measurement on a busy machine).
Writes, for the page to embed:
  docs/assets/generated/models/conv1d_linear.png         time per call and ratio, per size
  docs/assets/generated/models/conv1d_linear_table.txt   the measured numbers, a Markdown table
  docs/assets/generated/models/conv1d_linear_summary.md  the page's verdicts, rendered from the table
  docs/assets/generated/models/conv1d_linear_summary.zh.md  the same verdicts in Chinese (zh pages)
Each size is timed with torch.utils.benchmark in one run (medians of blocked_autorange),
so the ratios compare the layers under the same conditions. About a minute on 2 cores.

The table is the data of record: the summary is rendered from the table's text
(`render_summary`, in each language of LANGS), never from the measurements directly,
so that tests/test_benchmark_conv1d_linear.py can re-render it from the committed
table and compare. `--summary-only` re-renders the summaries from the committed
table without measuring anything.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from torch.utils import benchmark

from docverify.contract.sections import sections_module
from docverify.i18n import languages
from docverify.paths import GENERATED_DIR, REPO_ROOT
from docverify.run.machine import describe_machine

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

LANGS = ("en", "zh")  # the site's editions: each gets its own summary file

# The summary's wording per language; render_summary fills in the same numbers and verdicts.
SUMMARY_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "times": "{}×",
        "span": "{lo} to {hi}",
        "list_sep": ", ",
        "holds": "holds",
        "does_not_hold": "does not hold",
        "reverse": "does not hold; it is the reverse",
        "every_size": "at every size",
        "some_sizes": "at {k} of {n} sizes",
        "below": "below",
        "above": "above",
        "linear": (
            '- **"linear\'s time stays about the same as the input grows": {v_linear}.** '
            "`Linear` took {small_linear} µs at L={small_L} and {large_linear} µs at "
            "L={large_L}: {linear_growth} the time for {more_rows} the rows."
        ),
        "conv": (
            '- **"conv1d\'s time grows with the input": {v_conv}.** `Conv1d` (contiguous input) '
            "took {conv_growth} the time for {more_rows} the rows ({small_conv} µs to "
            "{large_conv} µs). It grew less than `Linear`, which is consistent with a larger "
            "fixed cost per call: {small_conv} µs at L={small_L} and {second_conv} µs at "
            "L={second_L}, {second_growth} the time for {second_rows} the rows."
        ),
        "small": (
            '- **"conv1d(k=1) is faster for small inputs": {v_small}.** At L={small_L} `Conv1d` '
            "took {small_ratio} the time of `Linear` on a contiguous input, "
            "{small_permuted_ratio} on the notes' `permute` view."
        ),
        "large": (
            '- **"conv1d is much slower for large inputs": slower {slower_where}, not more so for '
            "large inputs.** At L={large_L} `Conv1d` took {large_ratio} the time of `Linear` on "
            "a contiguous input and {large_permuted_ratio} on the notes' `permute` view; over all "
            "sizes the ratios were {conv_span} (contiguous) and {permuted_span} (`permute` view), "
            "and the ratio at the largest size was {direction} the one at the smallest."
        ),
        "proportional": (
            "- For large inputs both grow roughly in proportion to the rows: from L={before_L} "
            "to L={large_L} ({last_rows} the rows) `Linear` took {last_linear_growth} and "
            "`Conv1d` {last_conv_growth} the time."
        ),
        "permuted": (
            "- `Conv1d` on the **`permute` view** was slower than on a contiguous tensor at "
            "{permuted_slower} of {sizes} sizes (by {by_span}): a strided input costs extra work."
        ),
        "rough": (
            "The Conv1d / Linear ratio goes up and down with L ({ratios}), so single factors "
            "from this one run are rough: rely on the directions above, not on the second digit. "
            "The run used {threads} torch thread{s} ({machine}); {load}"
        ),
        "load": "the 1-minute load average was {load_start} at its start and {load_end} at its end.",
        "no_load": (
            "it did not record the machine's load, so nothing here says the machine was idle."
        ),
    },
    "zh": {
        "times": "{} 倍",
        "span": "{lo} 到 {hi}",
        "list_sep": "、",
        "holds": "成立",
        "does_not_hold": "不成立",
        "reverse": "不成立，恰恰相反",
        "every_size": "每个尺寸下都",
        "some_sizes": "{n} 个尺寸中有 {k} 个",
        "below": "低于",
        "above": "高于",
        "linear": (
            "- **“改变输入大小时，linear 所需时间基本不变”：{v_linear}。**"
            "`Linear` 在 L={small_L} 时耗时 {small_linear} µs，在 L={large_L} 时耗时 "
            "{large_linear} µs：行数是原来的 {more_rows}，耗时是原来的 {linear_growth}。"
        ),
        "conv": (
            "- **“conv1d 的时间会随着输入的增大而增大”：{v_conv}。**对连续输入，行数是原来的 "
            "{more_rows}时，`Conv1d` 的耗时是原来的 {conv_growth}（从 {small_conv} µs 到 "
            "{large_conv} µs）。它的增长比 `Linear` 小，这与每次调用有较大的固定开销相符："
            "L={small_L} 时 {small_conv} µs，L={second_L} 时 {second_conv} µs，行数是原来的 "
            "{second_rows}，耗时是原来的 {second_growth}。"
        ),
        "small": (
            "- **“输入较小时，conv1d(k=1) 比 linear 计算更快”：{v_small}。**在 L={small_L} 时，"
            "对连续输入，`Conv1d` 的耗时是 `Linear` 的 {small_ratio}；对笔记中的 `permute` "
            "视图，是 {small_permuted_ratio}。"
        ),
        "large": (
            "- **“输入很大时，conv1d 比 linear 慢不少”：{slower_where}更慢，但输入大时并没有慢得"
            "更多。**在 L={large_L} 时，对连续输入，`Conv1d` 的耗时是 `Linear` 的 {large_ratio}，"
            "对笔记中的 `permute` 视图是 {large_permuted_ratio}；在所有尺寸上，比值的范围分别是 "
            "{conv_span}（连续输入）和 {permuted_span}（`permute` 视图），最大尺寸下的比值"
            "{direction}最小尺寸下的比值。"
        ),
        "proportional": (
            "- 对于大输入，两者的耗时都大致与行数成正比：从 L={before_L} 到 L={large_L}（行数是"
            "原来的 {last_rows}），`Linear` 的耗时是原来的 {last_linear_growth}，`Conv1d` 是原来"
            "的 {last_conv_growth}。"
        ),
        "permuted": (
            "- {sizes} 个尺寸中有 {permuted_slower} 个，`Conv1d` 作用于 **`permute` 视图**时比"
            "作用于连续张量时更慢（耗时是后者的 {by_span}）：带步长的输入需要额外的工作。"
        ),
        "rough": (
            "Conv1d / Linear 的比值随 L 忽高忽低（{ratios}），因此这一次运行得出的单个倍数只是"
            "粗略值：请依据上面的方向，不要依赖数字的第二位。这次运行使用了 {threads} 个 torch "
            "线程（{machine}）；{load}"
        ),
        "load": "运行开始时的 1 分钟平均负载为 {load_start}，结束时为 {load_end}。",
        "no_load": "运行时没有记录机器的负载，所以这里没有任何内容表明机器当时是空闲的。",
    },
}
SUMMARY_LINES = ("linear", "conv", "small", "large", "proportional", "permuted", None, "rough")


def summary_path(lang: str = "en") -> Path:
    """Where the summary in `lang` goes: x_summary.md for English, x_summary.<lang>.md otherwise."""
    return Path(languages.twin(SUMMARY, lang))


def render_summary(table_text: str, lang: str = "en") -> str:
    """The Markdown fragment the page embeds: every number in its verdicts comes from the table.

    `lang` picks the wording (SUMMARY_WORDS); the numbers and verdicts are the same in each.
    """
    words = SUMMARY_WORDS[lang]
    table = read_table(table_text)
    rows = table.rows
    small, second, before_large, large = rows[0], rows[1], rows[-2], rows[-1]
    linear_growth = large.linear_us / small.linear_us
    conv_growth = large.conv_us / small.conv_us
    slower = [r for r in rows if r.conv_ratio > 1]

    def times(x: float) -> str:  # a factor: whole for 10 and more, else two decimals
        return words["times"].format(f"{x:,.0f}" if x >= 10 else f"{x:.2f}")

    def ratio(x: float) -> str:  # a ratio as the table prints it
        return words["times"].format(f"{x:.2f}")

    def span(values: list[float]) -> str:
        return words["span"].format(lo=f"{min(values):.2f}", hi=f"{max(values):.2f}")

    def verdict(holds: bool, otherwise: str = "does_not_hold") -> str:
        return words["holds" if holds else otherwise]

    facts = {
        "small_L": small.length,
        "second_L": second.length,
        "before_L": before_large.length,
        "large_L": large.length,
        "small_linear": f"{small.linear_us:,}",
        "large_linear": f"{large.linear_us:,}",
        "small_conv": f"{small.conv_us:,}",
        "second_conv": f"{second.conv_us:,}",
        "large_conv": f"{large.conv_us:,}",
        "more_rows": words["times"].format(f"{large.length // small.length:,}"),
        "second_rows": words["times"].format(f"{second.length // small.length:,}"),
        "last_rows": words["times"].format(f"{large.length // before_large.length:,}"),
        "linear_growth": times(linear_growth),
        "conv_growth": times(conv_growth),
        "second_growth": times(second.conv_us / small.conv_us),
        "last_linear_growth": times(large.linear_us / before_large.linear_us),
        "last_conv_growth": times(large.conv_us / before_large.conv_us),
        "v_linear": verdict(linear_growth < 2),
        "v_conv": verdict(conv_growth >= 2),
        "v_small": verdict(small.conv_ratio < 1, otherwise="reverse"),
        "small_ratio": ratio(small.conv_ratio),
        "small_permuted_ratio": ratio(small.permuted_ratio),
        "large_ratio": ratio(large.conv_ratio),
        "large_permuted_ratio": ratio(large.permuted_ratio),
        "slower_where": (
            words["every_size"]
            if len(slower) == len(rows)
            else words["some_sizes"].format(k=len(slower), n=len(rows))
        ),
        "conv_span": span([r.conv_ratio for r in rows]),
        "permuted_span": span([r.permuted_ratio for r in rows]),
        "direction": words["below" if large.conv_ratio < small.conv_ratio else "above"],
        "permuted_slower": sum(r.permuted_us > r.conv_us for r in rows),
        "sizes": len(rows),
        "by_span": words["times"].format(span([r.permuted_us / r.conv_us for r in rows])),
        "ratios": words["list_sep"].join(f"{r.conv_ratio:.2f}" for r in rows),
        "threads": table.threads,
        "s": "s" if table.threads != 1 else "",
        "machine": table.machine,
    }
    facts["load"] = (
        words["load"].format(load_start=f"{table.load[0]:.2f}", load_end=f"{table.load[1]:.2f}")
        if table.load
        else words["no_load"]
    )
    lines = [words[key].format(**facts) if key else "" for key in SUMMARY_LINES]
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
        help="re-render the summaries from the committed table; measure nothing",
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
    table = TABLE.read_text(encoding="utf-8")
    for lang in LANGS:
        summary_path(lang).write_text(render_summary(table, lang), encoding="utf-8")
    summaries = " and ".join(str(summary_path(lang)) for lang in LANGS)
    print(f"wrote {summaries}" + ("" if args.summary_only else f", {TABLE} and the plot"))


if __name__ == "__main__":
    main()
