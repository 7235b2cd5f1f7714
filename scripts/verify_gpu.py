"""Verify the site's CUDA claims on a GPU machine whose torch is already installed.

    make verify-gpu                      # or: python3 scripts/verify_gpu.py

Meant for a machine we don't set up: its Python and torch are whatever it has
(often another Python and an older torch than requirements.txt pins), nothing
is installed from the network, and no virtual environment is made. Missing
pure-Python packages can be carried in as wheels and put on PYTHONPATH.

It runs every `cuda`-marked case and every device-dependent case (any snippet
that mentions CUDA, runs on a CUDA device, or is launched with torchrun, plus
the two-GPU NCCL launch), then writes:
- .reports/cuda.json             the CUDA verification report (read by the site build)
- .reports/gpu-machine/cpu.json  the CPU cases as they ran on that machine
- .reports/gpu-machine/output-diffs.md  every `#>` line printed differently there,
  with both torch versions, to tell device dependence from version differences.

Exit status: pytest's. `--record` rewrites the `#>` lines of the CUDA-only
snippets instead of checking them (their first run on a GPU).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / ".reports"
MACHINE_REPORTS = REPORTS / "gpu-machine"
# What the harness and the snippets import; all ship with a usual GPU image or as small wheels.
NEEDED = ("torch", "torchvision", "numpy", "einops", "matplotlib", "PIL", "yaml", "pytest")
CASES = [
    "tests/test_snippets.py",
    "tests/test_page_programs.py",
    "tests/test_distributed_nccl.py",
]


# The cases a GPU can change: needing CUDA, or device dependent (tests/test_snippets.py marks).
SELECTION = "cuda or device_dependent"


def missing_modules() -> list[str]:
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def pytest_command(*, record: bool, workers: int) -> list[str]:
    """pytest on the cases a GPU machine must run; `record` rewrites CUDA-only `#>` lines."""
    command = [sys.executable, "-m", "pytest", *CASES, "-p", "no:cacheprovider"]
    command += [f"--reports-dir={MACHINE_REPORTS}"]
    if record:
        return [*command, "-m", "cuda", "--update-examples", "-p", "no:xdist"]
    command += ["-m", SELECTION]
    command += [f"--output-diffs={MACHINE_REPORTS / 'output-diffs.md'}"]
    if workers > 1 and importlib.util.find_spec("xdist") is not None:
        command += ["-n", str(workers)]
    return command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="rewrite CUDA-only `#>` lines")
    parser.add_argument(
        "--allow-no-cuda",
        action="store_true",
        help="run even without a CUDA device (to try the command itself; CUDA cases skip)",
    )
    parser.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1))
    args = parser.parse_args(argv)

    missing = missing_modules()
    if missing:
        print(
            f"missing Python packages: {', '.join(missing)}. Carry their wheels and "
            "`pip install --no-index --target DIR`, then put DIR on PYTHONPATH.",
            file=sys.stderr,
        )
        return 2
    import torch

    if not torch.cuda.is_available() and not args.allow_no_cuda:
        print("no CUDA device visible to torch: nothing to verify here", file=sys.stderr)
        return 2
    print(
        f"Python {sys.version.split()[0]}, torch {torch.__version__}, "
        f"CUDA {torch.version.cuda}, {torch.cuda.device_count()} GPU(s)",
        flush=True,
    )
    MACHINE_REPORTS.mkdir(parents=True, exist_ok=True)
    # No editable install there: the repository's own packages come from the tree.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    command = pytest_command(record=args.record, workers=args.workers)
    print("$", " ".join(command), flush=True)
    returncode = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    cuda_report = MACHINE_REPORTS / "cuda.json"
    if cuda_report.is_file():
        shutil.copyfile(cuda_report, REPORTS / "cuda.json")
        print(f"CUDA report: {REPORTS / 'cuda.json'}")
    print(f"`#>` lines printed differently: {MACHINE_REPORTS / 'output-diffs.md'}")
    return returncode


if __name__ == "__main__":
    raise SystemExit(main())
