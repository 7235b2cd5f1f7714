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
    snippet, capture_dir = Path(sys.argv[1]), Path(sys.argv[2])
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
