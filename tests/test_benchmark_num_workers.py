"""docs/data/num_workers.md: benchmark numbers are generated, and every verdict the prose states holds.

- The prose embeds docs/assets/generated/data/num_workers_summary.md with a
  bare `--8<--` line (the zh page gets its twin num_workers_summary.zh.md);
  each fragment must equal what `benchmarks/num_workers.py:render_summary`
  renders in its language from the committed table
  (docs/assets/generated/data/num_workers.txt). Nothing is re-run.
- Each verdict the page states in words ("more workers are not faster", "one
  worker alone is slower than the main process", ...) is asserted against
  the committed table, so a rerun that changes a direction fails here until
  the prose is changed.
- The benchmark times the page's own pipeline code (the snippet's `pipeline`
  section, run by tests/test_snippets.py on a small size).
- The prose names the torch the committed table was measured on.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
import time
from pathlib import Path

import pytest

from docverify.paths import DOCS_DIR, GENERATED_DIR, REPO_ROOT

BENCHMARK = REPO_ROOT / "benchmarks" / "num_workers.py"
TABLE = GENERATED_DIR / "data" / "num_workers.txt"
SUMMARY = GENERATED_DIR / "data" / "num_workers_summary.md"
SUMMARIES = {"en": SUMMARY, "zh": GENERATED_DIR / "data" / "num_workers_summary.zh.md"}
PAGE = DOCS_DIR / "data" / "num_workers.md"

LOADING, SHORT, LONG = "none (loading only)", "short: 0.3 x load", "long: 3 x load"

# How each language's summary words the verdicts checked in test_summary_states_the_verdicts.
SUMMARY_WORDS = {
    "en": {
        "rows": {
            LOADING: "- **Loading only",
            SHORT: "- **Short training step",
            LONG: "- **Long training step",
        },
        "slower than the main process": r"1 worker: [\d.]+ \([\d.]+\), slower than the main process",
        "faster than 1 worker": "faster than 1 worker",
        "enough": "Fewest workers within 0.03 of the best: {}.",
    },
    "zh": {
        "rows": {LOADING: "- **只加载", SHORT: "- **短训练步骤", LONG: "- **长训练步骤"},
        "slower than the main process": r"1 个 worker：[\d.]+（[\d.]+），比单用主进程更慢",
        "faster than 1 worker": "比 1 个 worker 更快",
        "enough": "与最佳值相差不超过 0.03 的最少 worker 数：{}。",
    },
}


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("num_workers_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def results(bench):
    return bench.parse_results(TABLE.read_text(encoding="utf-8"))


def verdict_failures(r) -> list[str]:
    """The verdicts docs/data/num_workers.md states in words, each checked on results `r`."""
    more = [w for w in r.workers if w > r.cpus]  # more workers than CPUs
    checks = {
        # "No measured ratio beats this bound."
        "no ratio beats max(S, L / w) / (L + S)": all(
            r.ratio(label, w) >= r.bound(label, w) for label in r.ratios for w in r.workers
        ),
        # Long step: "one worker hides most of the loading"
        "long step: 1 worker hides most of the loading": (1 - r.ratio(LONG, 1))
        > 0.5 * (1 - r.bound(LONG, 1)),
        # Long step: "more workers are not faster"
        "long step: more workers are not faster than 1": all(
            r.ratio(LONG, w) >= r.ratio(LONG, 1) for w in r.workers if w > 1
        ),
        # Short step: "one worker is not enough; one worker per CPU is clearly faster"
        "short step: 1 worker per CPU clearly faster than 1": r.ratio(SHORT, r.cpus)
        < r.ratio(SHORT, 1) - 0.1,
        # Short step: "more workers than CPUs are not faster than that"
        "short step: more workers than CPUs not faster": all(
            r.ratio(SHORT, w) >= r.ratio(SHORT, r.cpus) for w in more
        ),
        # Loading only: "one worker alone is slower than the main process"
        "loading only: 1 worker slower than the main process": r.ratio(LOADING, 1) > 1,
        # Loading only: "workers win only by running in parallel on several CPUs"
        "loading only: workers win with several CPUs": r.ratio(LOADING, r.cpus) < 1,
        # Loading only: "more workers than CPUs were not faster than one worker per CPU"
        "loading only: more workers than CPUs not faster": all(
            r.ratio(LOADING, w) >= r.ratio(LOADING, r.cpus) for w in more
        ),
        # "persistent_workers=True saves it"
        "persistent_workers=True saves start-up time": r.persistent_ratio < 1,
        # Caveat box: "the shorter the step, the more workers it takes to come close to the best"
        "short step needs more workers than the long one": r.enough_workers(SHORT)
        > r.enough_workers(LONG),
        # Caveat box: "(two with the short step, one with the long one)"
        "two workers for the short step, one for the long": (
            r.enough_workers(SHORT),
            r.enough_workers(LONG),
        )
        == (2, 1),
    }
    return [name for name, holds in checks.items() if not holds]


def test_summaries_are_written_for_every_language(bench) -> None:
    # The script writes (and --summary-only re-renders) one summary per language, here.
    assert tuple(SUMMARIES) == bench.LANGS
    assert {lang: bench.summary_path(lang) for lang in bench.LANGS} == SUMMARIES


@pytest.mark.parametrize("lang", list(SUMMARIES))
def test_summary_is_rendered_from_the_committed_table(bench, lang: str) -> None:
    path = SUMMARIES[lang]
    rendered = bench.render_summary(TABLE.read_text(encoding="utf-8"), lang)
    assert path.is_file(), f"{path.relative_to(REPO_ROOT)} is missing"
    assert path.read_text(encoding="utf-8") == rendered, (
        f"{path.relative_to(REPO_ROOT)} is stale: "
        "run `.venv/bin/python benchmarks/num_workers.py --summary-only`"
    )


def summary_rows(summary: str, lang: str) -> dict[str, str]:
    """The summary's line for each training step, found by its name in `lang`."""
    starts = SUMMARY_WORDS[lang]["rows"]
    rows = {
        label: [line for line in summary.splitlines() if line.startswith(start)]
        for label, start in starts.items()
    }
    assert all(len(found) == 1 for found in rows.values()), rows
    return {label: found[0] for label, found in rows.items()}


def summary_failures(summary: str, lang: str) -> list[str]:
    """The verdicts of verdict_failures that the summary in `lang` states in words, checked."""
    words, rows = SUMMARY_WORDS[lang], summary_rows(summary, lang)
    checks = {
        "loading only: 1 worker slower than the main process": bool(
            re.search(words["slower than the main process"], rows[LOADING])
        ),
        "short step: 2 workers faster than 1": words["faster than 1 worker"] in rows[SHORT],
        "long step: more workers are not faster than 1": words["faster than 1 worker"]
        not in rows[LONG],
        "two workers for the short step": rows[SHORT].endswith(words["enough"].format(2)),
        "one worker for the long step": rows[LONG].endswith(words["enough"].format(1)),
    }
    return [name for name, holds in checks.items() if not holds]


@pytest.mark.parametrize("lang", list(SUMMARIES))
def test_summary_states_the_verdicts(lang: str) -> None:
    # The committed summary in each language says what the prose's verdicts say.
    path = SUMMARIES[lang]
    failures = summary_failures(path.read_text(encoding="utf-8"), lang)
    assert not failures, f"{path.relative_to(REPO_ROOT)} does not state: {failures}"


@pytest.mark.parametrize("lang", list(SUMMARIES))
def test_summary_words_follow_the_data(bench, lang: str) -> None:
    # A table in which more workers win with the long step renders words that contradict
    # the prose, in every language, and the checks above say so.
    text = TABLE.read_text(encoding="utf-8")
    doctored = re.sub(
        r"^long: 3 x load .*$",
        f"{LONG:<24}" + "".join(f"{v:>11.2f}" for v in (1.0, 0.90, 0.85, 0.76)),
        text,
        flags=re.MULTILINE,
    )
    assert bench.parse_results(doctored).ratios[LONG] == (1.0, 0.90, 0.85, 0.76)
    assert summary_failures(bench.render_summary(doctored, lang), lang) == [
        "long step: more workers are not faster than 1",
        "one worker for the long step",
    ]


def test_page_embeds_the_summary_and_types_no_measured_number(results) -> None:
    page = PAGE.read_text(encoding="utf-8")
    embed = f'--8<-- "{SUMMARY.relative_to(REPO_ROOT).as_posix()}"'
    assert f"\n\n{embed}\n\n" in page, "the summary must be a bare embed line in the prose"
    measured = {f"{v:.2f}" for row in results.ratios.values() for v in row if v != 1.0}
    measured |= {f"{results.persistent_ratio:.2f}", f"{results.load_ms:.0f} ms"}
    typed = sorted(n for n in measured if re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", page))
    assert not typed, f"{PAGE.name} types measured numbers instead of embedding them: {typed}"


def test_the_verdicts_the_prose_states_hold_on_the_committed_table(bench, results) -> None:
    assert results.cpus == 2 and results.workers == (0, 1, 2, 4)
    # "several rounds over all settings, keeping each setting's fastest epoch";
    # "kept running between epochs (persistent_workers=True, after warm-up epochs)"
    text = TABLE.read_text(encoding="utf-8")
    rounds = int(re.search(r"fastest of (\d+) rounds kept", text)[1])
    assert rounds >= 2
    assert bench.STEADY_STATE in text.splitlines()
    assert not verdict_failures(results)


def test_the_verdict_checks_fail_on_contradicting_data(results) -> None:
    # A table in which 4 workers win with the long step and when only loading, and
    # 1 worker beats the main process when only loading (impossible: below the bound),
    # contradicts the prose: the checks say so.
    ratios = dict(results.ratios)
    ratios[LONG] = (1.0, 0.90, 0.85, 0.76)
    ratios[LOADING] = (1.0, 0.95, 0.78, 0.72)
    doctored = dataclasses.replace(results, ratios=ratios)
    assert verdict_failures(doctored) == [
        "no ratio beats max(S, L / w) / (L + S)",
        "long step: 1 worker hides most of the loading",
        "long step: more workers are not faster than 1",
        "loading only: 1 worker slower than the main process",
        "loading only: more workers than CPUs not faster",
        "short step needs more workers than the long one",
        "two workers for the short step, one for the long",
    ]
    # A second table breaks the verdicts the first leaves standing: with the short step one
    # worker per CPU barely helps and more workers win; loading only never wins; and keeping
    # the workers costs time.
    ratios = dict(results.ratios)
    ratios[SHORT] = (1.0, 0.80, 0.75, 0.74)
    ratios[LOADING] = (1.0, 1.2, 1.05, 1.10)
    doctored = dataclasses.replace(results, ratios=ratios, persistent_ratio=1.05)
    assert verdict_failures(doctored) == [
        "short step: 1 worker per CPU clearly faster than 1",
        "short step: more workers than CPUs not faster",
        "loading only: workers win with several CPUs",
        "persistent_workers=True saves start-up time",
    ]


def test_the_timer_warms_up_as_often_as_the_table_says(bench) -> None:
    # Each timing is Timer.timeit(number=1): the statement's runs before the timed one are
    # the warm-up epochs the table's heading names (torch.utils.benchmark decides how many).
    runs: list[int] = []
    bench.Timer(stmt="runs.append(1)", globals={"runs": runs}, num_threads=1).timeit(number=1)
    assert len(runs) - 1 == bench.WARM_UP_EPOCHS
    assert f"after {bench.WARM_UP_EPOCHS} warm-up epochs" in bench.STEADY_STATE


def test_a_sleeping_step_leaves_the_cpu_free() -> None:
    # "a training step simulated with time.sleep, which ... leaves the CPU free": the process
    # uses almost no CPU time while it sleeps (a busy loop of the same length would use all).
    cpu, wall = time.process_time(), time.perf_counter()
    time.sleep(0.2)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert wall >= 0.2 and cpu < 0.25 * wall


def test_the_bound_counts_workers_up_to_the_cpus(results) -> None:
    assert results.bound(LOADING, 4) == results.bound(LOADING, 2) == 0.5
    assert results.bound(LONG, 1) == pytest.approx(0.75)
    assert results.bound(SHORT, 2) == pytest.approx(0.5 / 1.3)


def test_the_benchmark_times_the_pipeline_the_page_shows(bench) -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert '--8<-- "snippets/data/num_workers.py:pipeline"' in page
    assert "benchmarks/num_workers.py:" not in page  # no unchecked benchmark code on the page
    # "Every setting is timed with `torch.utils.benchmark`"
    assert "from torch.utils.benchmark import Timer" in BENCHMARK.read_text(encoding="utf-8")
    try:
        pipeline = bench.load_pipeline()
        assert Path(pipeline.__file__) == REPO_ROOT / "snippets" / "data" / "num_workers.py"
        sample = pipeline.AugmentedPhotos(1)[0]
        assert sample.shape == (3, 224, 224)
        assert callable(pipeline.epoch)
    finally:
        sys.modules.pop("num_workers_pipeline", None)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_prose_names_the_torch_of_the_committed_table(lang: str) -> None:
    # The page says which torch the committed table was measured on; a rerun on another
    # torch fails here until the prose says so.
    torch_version = re.search(r"· torch (\d+\.\d+\.\d+)", TABLE.read_text(encoding="utf-8"))[1]
    page = PAGE if lang == "en" else PAGE.with_name("num_workers.zh.md")
    assert f"torch {torch_version}" in " ".join(page.read_text(encoding="utf-8").split())
    # "... the one pinned for Python 3.11": requirements.txt pins that torch there.
    pins = (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(rf'^torch=={re.escape(torch_version)}; python_version >= "3.11"', pins, re.M)
