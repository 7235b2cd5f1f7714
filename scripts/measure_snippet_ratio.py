"""How much faster the suite verifies the snippets than one `python` process per snippet.

    make measure-snippet-ratio           # or: .venv/bin/python scripts/measure_snippet_ratio.py

Times, in one invocation and on the same machine:

(a) the snippet verification as the suite runs it:
    python -m pytest -n 2 tests/test_snippets.py (wall time, startup and collection included);
(b) every snippet file as its own process, as a reader runs it: `python snippets/<s>/<p>.py`,
    or `torchrun <its # launch: options> --standalone snippets/<s>/<p>.py` for a launched one,
    two at a time (the suite's two workers), CUDA-only files skipped as the suite skips them.

and prints the machine, both wall times and their ratio (b)/(a), and the CPU time each
side used (all its processes). `--repeat N` alternates (a) and (b) N times (a b, b a,
a b, ...) so that a change in the machine's load does not favour one side; the ratio of
each round is printed, then the median, and the ratio of the fastest run of each side
(the least disturbed by other load). On a shared machine both times grow with its load
(printed before and after each side), CPU time too (threads spin while they wait).
Standard library and this checkout's own `docverify` only; the snippets' own figures are
rewritten, as by any run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # this checkout's docverify, whatever the venv points at

from docverify.contract import snippets as snippet_file  # noqa: E402

WORKERS = 2  # the suite's `-n 2`


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def children_cpu() -> float:
    """CPU seconds of every finished child process and its descendants, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def commands(python: str) -> list[tuple[str, list[str]]]:
    """(snippet, command) for every snippet the suite runs on CPU."""
    found = []
    for path in snippet_file.discover(ROOT / "snippets"):
        snippet = snippet_file.load(path)
        if "cpu" not in snippet.devices:
            continue  # `# requires: cuda`: skipped by the suite on this machine too
        rel = path.relative_to(ROOT).as_posix()
        if snippet.launched:  # torchrun = python -m torch.distributed.run
            options = [*snippet.launch[1:], "--standalone"]
            found.append((rel, [python, "-m", "torch.distributed.run", *options, rel]))
        else:
            found.append((rel, [python, rel]))
    return found


def environment() -> dict[str, str]:
    # This checkout's docverify (figures land in this checkout), as the suite imports it.
    pythonpath = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": pythonpath}


def run_suite(python: str) -> float:
    """(a): wall time of the suite's snippet verification."""
    command = [python, "-m", "pytest", "-n", str(WORKERS), "tests/test_snippets.py"]
    command += ["-p", "no:randomly", "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:  # still timed: every snippet ran; say which failed
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        print(
            f"  note: the suite exited {done.returncode}: {'; '.join(failed) or done.stderr[-500:]}"
        )
    return seconds


def suite_durations(count: int) -> str:
    """The slowest snippets of the suite run just made, from the report it wrote."""
    report = json.loads((ROOT / ".reports" / "cpu.json").read_text(encoding="utf-8"))
    rows = sorted(report["results"], key=lambda row: -row["duration_s"])[:count]
    return ", ".join(
        f"{row['snippet'].removeprefix('snippets/')} {row['duration_s']:.1f} s" for row in rows
    )


def run_one(item: tuple[str, list[str]]) -> tuple[str, float, int, str]:
    rel, command = item
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchrun-logs-") as logs:
        env = {**environment(), "PET_LOG_DIR": logs}  # torchrun's --log-dir, not /tmp
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
    return rel, time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def run_separately(python: str) -> tuple[float, list[tuple[str, float]]]:
    """(b): wall time of one process per snippet file, two at a time."""
    items = commands(python)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = list(pool.map(run_one, items))
    seconds = time.perf_counter() - start
    for rel, _, code, output in results:
        if code != 0:  # still timed: it ran; say how it ended
            last = output.strip().splitlines()[-1:] or [""]
            print(f"  note: {rel} exited {code} as a separate process: {last[0][:300]}")
    return seconds, [(rel, took) for rel, took, _, _ in results]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds of (a) and (b)")
    parser.add_argument("--python", default=sys.executable, help="interpreter (the venv's)")
    parser.add_argument("--slowest", type=int, default=10, help="snippets listed per side")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}; {len(commands(args.python))} snippet files on CPU")
    ratios = []
    walls: dict[str, list[float]] = {"a": [], "b": []}
    for round_ in range(args.repeat):
        sides = ["a", "b"] if round_ % 2 == 0 else ["b", "a"]
        took: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for side in sides:
            before, cpu_before = load(), children_cpu()
            if side == "a":
                took["a"] = run_suite(args.python)
            else:
                took["b"], per_file = run_separately(args.python)
            cpu[side] = children_cpu() - cpu_before
            walls[side].append(took[side])
            print(
                f"round {round_ + 1} ({side}) {took[side]:6.1f} s wall, {cpu[side]:6.1f} s CPU,"
                f" load average {before} -> {load()}",
                flush=True,
            )
        ratios.append(took["b"] / took["a"])
        print(
            f"round {round_ + 1}: (a) suite {took['a']:.1f} s, (b) one process per file "
            f"{took['b']:.1f} s: ratio {ratios[-1]:.2f}x (CPU time: {cpu['b'] / cpu['a']:.2f}x)",
            flush=True,
        )
        print(f"  slowest in the suite (a): {suite_durations(args.slowest)}")
        slowest = sorted(per_file, key=lambda item: -item[1])[: args.slowest]
        listed = ", ".join(f"{r.removeprefix('snippets/')} {s:.1f} s" for r, s in slowest)
        print(f"  slowest as separate processes (b): {listed}")
    if len(ratios) > 1:
        print(f"median ratio over {len(ratios)} rounds: {statistics.median(ratios):.2f}x")
        # The fastest run of each side is the one least slowed by other load on the machine.
        best = {side: min(times) for side, times in walls.items()}
        print(
            f"fastest of each side: (a) {best['a']:.1f} s, (b) {best['b']:.1f} s:"
            f" ratio {best['b'] / best['a']:.2f}x"
        )


if __name__ == "__main__":
    main()
