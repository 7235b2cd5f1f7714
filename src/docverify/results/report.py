"""The verification report: written by the test run, read by the site build.

`make test` (pytest) records, per snippet file and device, whether it passed,
how long it took, where and when it ran; the site build turns that into the
badge under every code block and into the Verification page. One JSON file per
device kind: .reports/cpu.json and, from a GPU runner, .reports/cuda.json.
Results are merged per snippet, so a partial run (`pytest -k tensors`) updates
only what it ran; entries for snippet files that no longer exist are dropped.

Each result records the sha256 of the snippet file's bytes it verified, so a
badge never vouches for code edited since: `is_current` compares the recorded
hash with the file now. Whether a page's program is verified is decided by the
build from the page and this record (docverify.contract.page_program.covering_snippet):
the run never reads a page. `mkdocs serve` with live verification
(docverify.site.live) writes results too, marked `via="mkdocs serve"`, made the
same way (`record`) and sent as `to_dict`; writers take a lock on the report
(filelock), so that a live result written during a test run is not lost.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from docverify.paths import REPO_ROOT

REPORTS_DIR = REPO_ROOT / ".reports"
DEVICES = ("cpu", "cuda")
# 4: the content hash of the snippet file (no more of the page program: the build decides
# that), `via` and the executed lines. A report of another schema is ignored: it
# cannot say what it verified.
SCHEMA = 4


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
    sha256: str = ""  # of the snippet file's bytes that ran; "" = unknown, never current
    via: str = "pytest"  # or "mkdocs serve": a live re-run on save (docverify.site.live)
    # Lines of the snippet file the run executed (docverify.contract.line_trace): a proof link
    # to a line not among them points at a check that did not run.
    executed_lines: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        """The one serialised form: in the report file, between processes, from a live run."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SnippetResult:
        return cls(
            **{
                **data,
                "sections": tuple(data["sections"]),
                "executed_lines": tuple(data.get("executed_lines", ())),
            }
        )


def record(
    snippet: str,
    device: str,
    *,
    root: Path,
    sha256: str,
    sections: tuple[str, ...],
    outcome: str = "failed",
    duration_s: float = 0.0,
    executed_lines: tuple[int, ...] = (),
    via: str = "pytest",
    environment: dict[str, str] | None = None,
) -> SnippetResult:
    """The result of one run of `snippet`, with when, where and on what it ran (by default
    this process's `run_environment`). A run that has not ended is recorded as failed."""
    return SnippetResult(
        snippet=snippet,
        device=device,
        outcome=outcome,
        sections=tuple(sections),
        duration_s=round(duration_s, 3),
        sha256=sha256,
        via=via,
        executed_lines=tuple(sorted(executed_lines)),
        **(environment or run_environment(root)),
    )


def content_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    """sha256 of the file's bytes; None when it cannot be read."""
    try:
        return content_sha256(path.read_bytes())
    except OSError:
        return None


def verified_sha256(path: Path, source: str) -> str:
    """The hash of `path` if its bytes still hold `source` (the text that ran), else ""."""
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    try:
        text = data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return ""
    return content_sha256(data) if text == source.replace("\r\n", "\n") else ""


def is_current(result: SnippetResult, root: Path = REPO_ROOT) -> bool:
    """Whether `result` still vouches for the snippet file as it is now under `root`."""
    return bool(result.sha256) and file_sha256(root / result.snippet) == result.sha256


def current_commit(root: Path = REPO_ROOT) -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


@functools.cache
def run_environment(root: Path = REPO_ROOT) -> dict[str, str]:
    """Where and with what this process runs, on the checkout `root`; computed once (git)."""
    import torch

    from docverify.run.machine import describe_machine

    return {
        "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
        "commit": current_commit(root),
        "torch": torch.__version__.split("+")[0],
        "python": sys.version.split()[0],
        "machine": f"{describe_machine()} · {platform.system()} {platform.machine()}",
    }


def report_path(device: str, reports_dir: Path = REPORTS_DIR) -> Path:
    return reports_dir / f"{device}.json"


def load_results(
    device: str, reports_dir: Path = REPORTS_DIR, *, root: Path = REPO_ROOT
) -> dict[str, SnippetResult]:
    """The stored results whose snippet file still exists under the checkout `root`."""
    path = report_path(device, reports_dir)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA:
        return {}
    return {
        item["snippet"]: SnippetResult.from_dict(item)
        for item in data["results"]
        if (root / item["snippet"]).is_file()
    }


def load_all(
    reports_dir: Path = REPORTS_DIR, *, root: Path = REPO_ROOT
) -> dict[str, dict[str, SnippetResult]]:
    """Every device's stored results: {"cpu": {snippet: result}, "cuda": {...}}."""
    return {device: load_results(device, reports_dir, root=root) for device in DEVICES}


def merge_results(
    results: list[SnippetResult], reports_dir: Path = REPORTS_DIR, *, root: Path = REPO_ROOT
) -> None:
    """Write the new results over the stored ones (of files still under `root`), per device.

    Read, merge and write happen under one lock, so two writers (a test run and
    `mkdocs serve`) each keep the other's results; the file is replaced
    atomically, so a reader never sees half of it.
    """
    from filelock import FileLock  # the test stack's: the site build only reads reports

    for device in DEVICES:
        new = {r.snippet: r for r in results if r.device == device}
        if not new:
            continue
        path = report_path(device, reports_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(path.with_name(f".{path.name}.lock")):  # the writers' set only
            merged = {**load_results(device, reports_dir, root=root), **new}
            items = sorted(merged.values(), key=lambda r: r.snippet)
            payload = {"schema": SCHEMA, "device": device, "results": [r.to_dict() for r in items]}
            partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            partial.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
            os.replace(partial, path)
