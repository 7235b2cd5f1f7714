"""torchrun, with each rank forked from this launcher instead of started afresh.

Usage (by harness.run_snippet): python -m harness.fork_launch TORCHRUN_ARGS... SNIPPET CAPTURE_DIR

A launch by `torchrun script.py` imports torch once in the launcher and once in
every rank: about 4.5 s of CPU each with this CUDA build, so 13 s for two ranks.
torchrun's own code (`torch.distributed.run.run`) also accepts a function as
the entry point, and then starts ranks with its `--start-method`; with `fork`
they inherit the launcher's imported torch. So this module parses the
arguments with torchrun's own parser and runs torchrun's own `run`, changing
only the entry point (harness.launched_entry.run_rank) and the start method.
Rendezvous, environment variables (RANK, LOCAL_RANK, WORLD_SIZE, ...), the
elastic agent and failure reporting are torchrun's. The real command line,
each rank a fresh interpreter, is still run in the suite by the PyCharm
run-configuration test.
"""

from __future__ import annotations

import sys

from torch.distributed import run as torchrun

from harness.launched_entry import run_rank


def main(argv: list[str]) -> None:
    args = torchrun.parse_args([*argv[:-2], "--start-method=fork", "placeholder.py"])
    snippet, capture_dir = argv[-2:]
    config_from_args = torchrun.config_from_args

    def with_function_entrypoint(parsed):
        config, _command, _command_args = config_from_args(parsed)
        return config, run_rank, [snippet, capture_dir]

    torchrun.config_from_args = with_function_entrypoint
    try:
        torchrun.run(args)
    finally:
        torchrun.config_from_args = config_from_args


if __name__ == "__main__":
    main(sys.argv[1:])
