"""Launch a snippet as torchrun does, with each rank's prints recorded.

Usage (by docverify.run.run_snippet, through docverify.run.launch_server):
    main([TORCHRUN_ARGS..., SNIPPET, CAPTURE_DIR])

The arguments are parsed by torchrun's own parser and turned into its launch
configuration by its own `config_from_args`; torch's public launcher API,
`elastic_launch`, then starts the ranks (rendezvous, RANK/LOCAL_RANK/WORLD_SIZE,
the elastic agent and failure reporting are torchrun's). The entry point
differs: a function, `run_rank`, that runs the snippet as `__main__` and saves
what it printed to CAPTURE_DIR/rank<RANK>.json (its stdout and stderr: rank<RANK>.log).
A function entry point lets the ranks start with `--start-method` (see START_METHOD)
instead of each being a new `python SNIPPET`; the launch also sets up what
`--standalone` does itself, and preloads the forkserver. The real command line is
still run for real by the PyCharm page.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import runpy
import sys
import uuid
from dataclasses import asdict
from pathlib import Path

from docverify.contract.line_trace import lines_executed
from docverify.run.print_capture import PrintRecorder

# forkserver: ranks fork from a clean server process that has imported torch
# once (set_forkserver_preload), not from the launcher, whose
# rendezvous store runs threads (forking a threaded process can deadlock, and
# Python 3.12+ warns about it).
START_METHOD = "forkserver"


def output_to_log(capture_dir: Path) -> None:
    """This rank's stdout and stderr to CAPTURE_DIR/rank<RANK>.log.

    A rank inherits its output from the forkserver, which the warm launcher
    (docverify.run.launch_server) started at its first launch: that launch's log. An
    exception the rank ends with is reported by torchrun's agent, in the launch's log.
    """
    with open(capture_dir / f"rank{os.environ.get('RANK', '0')}.log", "w", encoding="utf-8") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)  # fds 1 and 2 stay open on the file when `log` closes


def run_rank(snippet_path: str, capture_path: str) -> None:
    """One rank: run the snippet as `__main__`; save what it printed and the lines it ran."""
    snippet, capture_dir = Path(snippet_path), Path(capture_path)
    output_to_log(capture_dir)
    recorder = PrintRecorder(snippet, echo=True)
    executed: set[int] = set()
    sys.argv = [str(snippet)]
    sys.path[0] = str(snippet.parent)  # as for `python SNIPPET`
    try:
        with recorder.installed(), lines_executed(snippet, executed):
            runpy.run_path(str(snippet), run_name="__main__")
    finally:
        out = capture_dir / f"rank{os.environ.get('RANK', '0')}.json"
        prints = [asdict(r) for r in recorder.records]
        out.write_text(json.dumps({"prints": prints, "executed": sorted(executed)}), "utf-8")
        # The rank's process then ends as every multiprocessing child does, with
        # os._exit and no interpreter finalization; that matters for DDP, whose gloo
        # worker threads outlive destroy_process_group (a thread that needs the GIL
        # while Python finalizes is ended through C++ noexcept code: SIGABRT).


def launch(argv: list[str], entry=run_rank) -> None:
    """torchrun's launch of `entry(SNIPPET, CAPTURE_DIR)` in each rank (argv: see the usage)."""
    from torch.distributed.launcher.api import elastic_launch
    from torch.distributed.run import config_from_args, parse_args

    *torchrun_args, snippet, capture_dir = argv
    # What `torchrun --standalone` sets up: a rendezvous on a free local port.
    standalone = ["--rdzv-backend=c10d", "--rdzv-endpoint=localhost:0", f"--rdzv-id={uuid.uuid4()}"]
    args = parse_args([*torchrun_args, *standalone, f"--start-method={START_METHOD}", snippet])
    config, _command, _command_args = config_from_args(args)
    # Not the main module: each rank runs it as `__mp_main__` first (Python's rule for a
    # `-m` main module), which warns when it is imported already.
    # torch._dynamo: what DistributedDataParallel imports when it is made (about 1 s a rank).
    multiprocessing.set_forkserver_preload(["torch", "torch._dynamo"])
    elastic_launch(config, entry)(snippet, capture_dir)


main = launch  # what docverify.run.launch_server runs
