"""What torchrun starts in each rank: the snippet, with its prints recorded.

Usage (by harness.run_snippet): torchrun ... launched_entry.py SNIPPET CAPTURE_DIR
Each rank runs SNIPPET as `__main__`, prints normally, and writes the prints it
made from the snippet file to CAPTURE_DIR/rank<RANK>.json.
"""

import json
import os
import runpy
import sys
from dataclasses import asdict
from pathlib import Path

from harness.print_capture import PrintRecorder


def main() -> None:
    run_rank(sys.argv[1], sys.argv[2])


def run_rank(snippet_path: str, capture_path: str) -> None:
    """One rank: run the snippet as `__main__` and save what it printed."""
    snippet, capture_dir = Path(snippet_path), Path(capture_path)
    recorder = PrintRecorder(snippet, echo=True)
    sys.argv = [str(snippet)]
    sys.path[0] = str(snippet.parent)  # as for `python SNIPPET`
    try:
        with recorder.installed():
            runpy.run_path(str(snippet), run_name="__main__")
    finally:
        out = capture_dir / f"rank{os.environ.get('RANK', '0')}.json"
        out.write_text(json.dumps([asdict(r) for r in recorder.records]), encoding="utf-8")


if __name__ == "__main__":
    main()
    # End the rank without interpreter finalization, as a forked rank does (its
    # multiprocessing child ends with os._exit). A DDP model keeps the gloo
    # process group, and its worker threads, alive past destroy_process_group;
    # a worker still releasing its last finished collective then needs the GIL
    # while Python finalizes, which exits the thread through C++ noexcept code:
    # std::terminate, SIGABRT (seen under load, "terminate called without an
    # active exception"). Everything the rank printed is flushed first.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
