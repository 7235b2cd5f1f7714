"""Benchmark: DataLoader num_workers on a CPU-bound image pipeline (docs/data/num_workers.md).

Run with `make bench-num-workers` (or `.venv/bin/python benchmarks/num_workers.py`).
Writes docs/assets/generated/data/num_workers.txt, which the page embeds, and
the Markdown summary docs/assets/generated/data/num_workers_summary.md that the
page's prose embeds, and its Chinese twin num_workers_summary.zh.md for the zh
page (rendered from the .txt by `render_summary`, one per language of LANGS;
re-render them alone, without timing anything, with `--summary-only`).

The pipeline is the page's own code: the `setup` and `pipeline` sections of
snippets/data/num_workers.py (where the test suite runs them on a small size),
loaded by `load_pipeline`. Each sample is an ImageNet-style augmentation of the
full-size sample photo (RandomResizedCrop 224, flip, ColorJitter, ToTensor,
Normalize): PIL and torch work on the CPU, about a few ms per sample. The
training step is simulated with time.sleep: a step that runs on a GPU leaves
the CPU free, and sleeping does the same. All times come from one run of this
script, so the ratios compare settings under the same conditions; the machine
and its load average are written next to them. The num_workers comparison
keeps the workers running between epochs (persistent_workers=True, after
Timer's warm-up epochs), so it shows the steady state of a long epoch; the cost
of starting workers every epoch is measured separately. About two minutes on
2 cores (1.6 min on 2026-12-07).
"""

from __future__ import annotations

import argparse
import os
import re
import types
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.utils.benchmark import Timer
from torch.utils.data import DataLoader

from docverify.contract.sections import sections_module
from docverify.i18n import languages
from docverify.paths import GENERATED_DIR, REPO_ROOT
from docverify.run.machine import describe_machine

OUTPUT = GENERATED_DIR / "data" / "num_workers.txt"
SUMMARY = GENERATED_DIR / "data" / "num_workers_summary.md"
PIPELINE_SNIPPET = REPO_ROOT / "snippets" / "data" / "num_workers.py"
SAMPLES, BATCH_SIZE = 96, 16
WORKERS = [0, 1, 2, 4]
STEPS = {"none (loading only)": 0.0, "short: 0.3 x load": 0.3, "long: 3 x load": 3.0}


def load_pipeline(snippet: Path = PIPELINE_SNIPPET) -> types.ModuleType:
    """The page's `setup` and `pipeline` sections, run as a module (AugmentedPhotos, epoch).

    Registered in sys.modules, so that its classes pickle by reference for workers.
    """
    return sections_module(snippet, "setup", "pipeline", module_name="num_workers_pipeline")


# --- the committed results, and the summary the page's prose embeds -------------------------


@dataclass(frozen=True)
class Results:
    """What num_workers.txt says, parsed."""

    cpus: int
    load_ms: float  # loading one batch in the main process
    workers: tuple[int, ...]
    ratios: dict[
        str, tuple[float, ...]
    ]  # step label -> epoch time / num_workers=0, per worker count
    persistent_ratio: float  # 3 epochs with persistent_workers=True / without

    def step_factor(self, label: str) -> float:
        """The training step as a multiple of the loading time (0 for loading only)."""
        match = re.search(r"([\d.]+) x load", label)
        return float(match[1]) if match else 0.0

    def ratio(self, label: str, workers: int) -> float:
        return self.ratios[label][self.workers.index(workers)]

    def bound(self, label: str, workers: int) -> float:
        """The best possible ratio: max(S, L / w) / (L + S), w counted up to the number of CPUs."""
        if workers == 0:
            return 1.0
        step = self.step_factor(label)
        return max(step, 1 / min(workers, self.cpus)) / (1 + step)

    def enough_workers(self, label: str, within: float = 0.03) -> int:
        """The fewest workers whose ratio is within `within` of the row's best."""
        best = min(self.ratios[label])
        return next(w for w in self.workers if self.ratio(label, w) <= best + within)


def parse_results(text: str) -> Results:
    """Parse the text `main` writes (num_workers.txt)."""
    lines = text.splitlines()
    cpus = int(re.search(r"(\d+) CPUs$", lines[0])[1])
    load_ms = float(re.search(r"main process: (\d+(?:\.\d+)?) ms", text)[1])
    header = next(i for i, line in enumerate(lines) if line.startswith("training step per batch"))
    workers = tuple(int(w) for w in re.findall(r"workers=(\d+)", lines[header]))
    ratios = {}
    for line in lines[header + 1 :]:
        if not line.strip():
            break
        label, values = line[:24].strip(), line[24:].split()
        ratios[label] = tuple(float(v) for v in values)
    persistent = float(re.search(r"persistent_workers=True takes ([\d.]+) x", text)[1])
    return Results(cpus, load_ms, workers, ratios, persistent)


LANGS = ("en", "zh")  # the site's editions: each gets its own summary file

# The summary's wording per language; render_summary fills in the same numbers and verdicts.
# "than_main" compares one worker with the main process, "than_workers" with fewer workers.
SUMMARY_WORDS = {
    "en": {
        "generated": (
            "<!-- Generated by benchmarks/num_workers.py from num_workers.txt: do not edit. -->"
        ),
        "intro": (
            "In the committed run ({cpus} CPUs; loading one batch in the main process took "
            "{load_ms} ms), each epoch's time relative to `num_workers=0`, and in brackets "
            "the best ratio possible on {cpus} CPUs, `max(S, L / w) / (L + S)` with `w` "
            "counted up to {cpus}:"
        ),
        "names": {
            "none (loading only)": "Loading only (no training step)",
            "short: 0.3 x load": "Short training step (0.3 × loading time)",
            "long: 3 x load": "Long training step (3 × loading time)",
        },
        "one_worker": "{n} worker",
        "workers": "{n} workers",
        "part": "{workers}: {ratio} ({bound})",
        "than_main": {
            "faster": "faster than the main process alone",
            "slower": "slower than the main process alone",
            "same": "as fast as the main process alone",
        },
        "than_workers": {
            "faster": "faster than {other}",
            "slower": "slower than {other}",
            "same": "as fast as {other}",
        },
        "comparison_sep": ", ",
        "parts_sep": "; ",
        "row": "- **{name}**: {parts}. Fewest workers within 0.03 of the best: {enough}.",
        "start_up": (
            "- **Worker start-up**: 3 short epochs with the workers already running "
            "(`persistent_workers=True`, started during the timer's warm-up) took {ratio} × "
            "the time of 3 epochs that each start their workers."
        ),
    },
    "zh": {
        "generated": "<!-- 由 benchmarks/num_workers.py 根据 num_workers.txt 生成：请勿编辑。 -->",
        "intro": (
            "在已提交的那次运行中（{cpus} 个 CPU；在主进程中加载一个批量耗时 {load_ms} ms），"
            "每个 epoch 的耗时相对于 `num_workers=0` 的比值如下，括号中是 {cpus} 个 CPU 上可能"
            "达到的最佳比值 `max(S, L / w) / (L + S)`，其中 `w` 最多算到 {cpus}："
        ),
        "names": {
            "none (loading only)": "只加载（没有训练步骤）",
            "short: 0.3 x load": "短训练步骤（0.3 × 加载时间）",
            "long: 3 x load": "长训练步骤（3 × 加载时间）",
        },
        "one_worker": "{n} 个 worker",
        "workers": "{n} 个 worker",
        "part": "{workers}：{ratio}（{bound}）",
        "than_main": {
            "faster": "比单用主进程更快",
            "slower": "比单用主进程更慢",
            "same": "与单用主进程一样快",
        },
        "than_workers": {
            "faster": "比 {other} 更快",
            "slower": "比 {other} 更慢",
            "same": "与 {other} 一样快",
        },
        "comparison_sep": "，",
        "parts_sep": "；",
        "row": "- **{name}**：{parts}。与最佳值相差不超过 0.03 的最少 worker 数：{enough}。",
        "start_up": (
            "- **worker 启动**：worker 已在运行时（`persistent_workers=True`，在计时器的预热中启动），"
            "3 个短 epoch 的耗时是每个 epoch 都启动 worker 时的 {ratio} 倍。"
        ),
    },
}


def _compare(ratio: float, other: float) -> str:
    """Which word of a "than_*" table fits: ratio faster, slower or as fast as other."""
    return "faster" if ratio < other else "slower" if ratio > other else "same"


def summary_path(lang: str = "en") -> Path:
    """Where the summary in `lang` goes: x_summary.md for English, x_summary.<lang>.md otherwise."""
    return Path(languages.twin(SUMMARY, lang))


def render_summary(text: str, lang: str = "en") -> str:
    """The Markdown fragment the page embeds: every number in it comes from `text`.

    `lang` picks the wording (SUMMARY_WORDS); the numbers and verdicts are the same in each.
    """
    words = SUMMARY_WORDS[lang]
    r = parse_results(text)

    def workers(n: int) -> str:
        return words["one_worker" if n == 1 else "workers"].format(n=n)

    out = [
        words["generated"],
        words["intro"].format(cpus=r.cpus, load_ms=f"{r.load_ms:.0f}"),
        "",
    ]
    for label in r.ratios:
        parts = []
        previous = None
        for w in r.workers[1:]:
            ratio = r.ratio(label, w)
            part = words["part"].format(
                workers=workers(w), ratio=f"{ratio:.2f}", bound=f"{r.bound(label, w):.2f}"
            )
            if w == 1:
                part += words["comparison_sep"] + words["than_main"][_compare(ratio, 1.0)]
            elif previous is not None:
                than = words["than_workers"][_compare(ratio, r.ratio(label, previous))]
                part += words["comparison_sep"] + than.format(other=workers(previous))
            parts.append(part)
            previous = w
        out.append(
            words["row"].format(
                name=words["names"].get(label, label),
                parts=words["parts_sep"].join(parts),
                enough=r.enough_workers(label),
            )
        )
    out += [words["start_up"].format(ratio=f"{r.persistent_ratio:.2f}"), ""]
    return "\n".join(out)


# --- the measurement --------------------------------------------------------------------------


# Timer.timeit(number=1) runs `stmt` twice before the timed run (its warm-up);
# tests/test_benchmark_num_workers.py counts the runs, and checks that the committed table
# says this, so the table's heading cannot drift from what the timer does.
WARM_UP_EPOCHS = 2
STEADY_STATE = (
    "steady state: workers already running "
    f"(persistent_workers=True, after {WARM_UP_EPOCHS} warm-up epochs)"
)


def seconds(stmt: str, epoch, **names: object) -> float:
    """One timing of `stmt` with torch.utils.benchmark (1 torch thread in the main process)."""
    timer = Timer(stmt=stmt, globals={"epoch": epoch, **names}, num_threads=1)
    return timer.timeit(number=1).median


def measure(repeats: int) -> str:
    pipeline = load_pipeline()
    # workers=4 on a 2-CPU machine: DataLoader warns "excessive worker creation"; measured anyway.
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    torch.manual_seed(0)
    dataset = pipeline.AugmentedPhotos(SAMPLES)
    batches = SAMPLES // BATCH_SIZE
    load_avg = os.getloadavg()[0]

    def loader(workers: int, persistent: bool = True) -> DataLoader:
        # Persistent by default: Timer's warm-up runs start the workers, so the timed
        # epoch shows the steady state of a long epoch; start-up is measured apart below.
        return DataLoader(
            dataset,
            batch_size=BATCH_SIZE,
            num_workers=workers,
            persistent_workers=persistent and workers > 0,
        )

    def timed(stmt: str, **names: object) -> float:
        return seconds(stmt, pipeline.epoch, **names)

    load_per_batch = timed("epoch(loader, 0.0)", loader=loader(0)) / batches
    # Round-robin over all settings, `repeats` times; keep each setting's fastest epoch,
    # the least disturbed by other processes on the machine.
    best: dict[tuple[str, int], float] = {}
    fresh = kept = float("inf")
    for _ in range(repeats):
        for label, factor in STEPS.items():
            for w in WORKERS:
                t = timed("epoch(loader, step_s)", loader=loader(w), step_s=factor * load_per_batch)
                best[label, w] = min(best.get((label, w), float("inf")), t)
        three_epochs = "for _ in range(3): epoch(loader, 0.0)"
        fresh = min(fresh, timed(three_epochs, loader=loader(2, persistent=False)))
        kept = min(kept, timed(three_epochs, loader=loader(2, persistent=True)))

    lines = [
        f"machine: {describe_machine()} · {os.cpu_count()} CPUs",
        f"load average when started: {load_avg:.1f} (fastest of {repeats} rounds kept)",
        f"epoch = {SAMPLES} samples, batch_size {BATCH_SIZE}, {batches} batches; "
        f"loading one batch in the main process: {load_per_batch * 1000:.0f} ms",
        "",
        "time per epoch relative to num_workers=0 (lower is faster),",
        STEADY_STATE,
        f"{'training step per batch':<24}" + "".join(f"{f'workers={w}':>11}" for w in WORKERS),
    ]
    for label in STEPS:
        times = [best[label, w] for w in WORKERS]
        lines.append(f"{label:<24}" + "".join(f"{t / times[0]:>11.2f}" for t in times))
    lines += [
        "",
        "worker start-up: 3 epochs, num_workers=2, loading only:",
        f"persistent_workers=True takes {kept / fresh:.2f} x the time of persistent_workers=False",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds over all settings")
    parser.add_argument(
        "--summary-only",
        action="store_true",
        help=f"only re-render the summaries ({SUMMARY.name}, ...) from the committed "
        f"{OUTPUT.name}; time nothing",
    )
    args = parser.parse_args()
    if not args.summary_only:
        text = measure(args.repeats)
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(text, encoding="utf-8")
        print(text, end="")
        print(f"wrote {OUTPUT}")
    text = OUTPUT.read_text(encoding="utf-8")
    for lang in LANGS:
        summary_path(lang).write_text(render_summary(text, lang), encoding="utf-8")
        print(f"wrote {summary_path(lang)}")


if __name__ == "__main__":
    main()
