"""torchrun for the version matrix: each rank runs the snippet one top-level statement at a time.

Usage (by docverify.matrix.record through docverify.run.run_snippet.run_launched):
main([TORCHRUN_ARGS..., SNIPPET, CAPTURE_DIR]), through docverify.run.launch_server

The suite's launch (docverify.run.launched_entry.launch: torchrun's own parser and
agent) with another rank entry: like docverify.run.launched_entry.run_rank it
records the rank's prints to CAPTURE_DIR/rank<RANK>.json, and it also writes the
statements that raised and the warnings each emitted to CAPTURE_DIR/errors<RANK>.json, carrying on past each.
"""

from __future__ import annotations

import json
import os
import sys
import types
from dataclasses import asdict
from pathlib import Path

from docverify.matrix.record import run_statements
from docverify.run.launched_entry import launch, output_to_log
from docverify.run.print_capture import PrintRecorder


def run_rank_statements(snippet_path: str, capture_path: str) -> None:
    snippet, capture_dir = Path(snippet_path), Path(capture_path)
    output_to_log(capture_dir)
    recorder = PrintRecorder(snippet, echo=True)
    sys.argv = [str(snippet)]
    sys.path[0] = str(snippet.parent)  # as for `python SNIPPET`
    rank = os.environ.get("RANK", "0")
    # A real `__main__` module: classes the snippet defines pickle by reference.
    module = types.ModuleType("__main__")
    module.__file__ = str(snippet.resolve())
    sys.modules["__main__"] = module  # a forked rank of its own: nothing to restore
    errors, warned = [], []
    try:
        with recorder.installed():
            source = snippet.read_text(encoding="utf-8")
            errors, warned, _ = run_statements(module.__dict__, source, str(snippet.resolve()))
    finally:
        prints = [asdict(r) for r in recorder.records]
        (capture_dir / f"rank{rank}.json").write_text(
            json.dumps({"prints": prints, "executed": []}), encoding="utf-8"
        )
        (capture_dir / f"errors{rank}.json").write_text(
            json.dumps(
                {"errors": [asdict(e) for e in errors], "warnings": [asdict(w) for w in warned]}
            ),
            encoding="utf-8",
        )


def main(argv: list[str]) -> None:  # what docverify.run.launch_server runs
    launch(argv, entry=run_rank_statements)
