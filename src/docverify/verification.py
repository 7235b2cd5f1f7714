"""The verification report: written by the test run, read by the site build.

`make test` (pytest) records, per snippet file and device, whether it passed,
how long it took, where and when it ran; the MkDocs hook turns that into the
badge under every code block and into the Verification page. One JSON file per
device kind: .reports/cpu.json and, from a GPU runner, .reports/cuda.json.
Results are merged per snippet, so a partial run (`pytest -k tensors`) updates
only what it ran; entries for snippet files that no longer exist are dropped.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from docverify.paths import REPO_ROOT

REPORTS_DIR = REPO_ROOT / ".reports"
DEVICES = ("cpu", "cuda")
SCHEMA = 1


@dataclass(frozen=True)
class SnippetResult:
    snippet: str  # repo-relative path
    device: str
    outcome: str  # "passed" or "failed"
    sections: tuple[str, ...]
    duration_s: float
    date: str  # ISO date of the run, UTC
    commit: str
    torch: str
    python: str
    machine: str


def current_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


@functools.cache
def run_environment() -> dict[str, str]:
    """Where and with what this process runs; computed once (it calls git)."""
    import torch

    from docverify.machine import describe_machine

    return {
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "commit": current_commit(),
        "torch": torch.__version__.split("+")[0],
        "python": sys.version.split()[0],
        "machine": f"{describe_machine()} · {platform.system()} {platform.machine()}",
    }


def report_path(device: str, reports_dir: Path = REPORTS_DIR) -> Path:
    return reports_dir / f"{device}.json"


def load_results(device: str, reports_dir: Path = REPORTS_DIR) -> dict[str, SnippetResult]:
    path = report_path(device, reports_dir)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA:
        return {}
    return {
        item["snippet"]: SnippetResult(**{**item, "sections": tuple(item["sections"])})
        for item in data["results"]
        if (REPO_ROOT / item["snippet"]).is_file()
    }


def merge_results(results: list[SnippetResult], reports_dir: Path = REPORTS_DIR) -> None:
    """Write the new results over the stored ones, per device."""
    for device in DEVICES:
        new = {r.snippet: r for r in results if r.device == device}
        if not new:
            continue
        merged = {**load_results(device, reports_dir), **new}
        items = sorted(merged.values(), key=lambda r: r.snippet)
        path = report_path(device, reports_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"schema": SCHEMA, "device": device, "results": [asdict(r) for r in items]}
        path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
