"""A warm torchrun launcher: one process per pytest worker runs every launch it is sent.

Usage (by docverify.run.run_snippet.run_launched): python -m docverify.run.launch_server
Reads one JSON request a line on stdin, {"launcher", "argv", "cwd", "log"}, runs
`import_module(launcher).main(argv)` in `cwd` with its own output written to `log`,
and answers {"returncode": 0 or 1} on a line of its stdout. Ends at end of input.

Why a server: a one-shot launch imported torch twice (the launcher, then its forkserver)
and each rank imported what DDP loads lazily: 10.2 s for ddp_train on 2 cores, against
2.5 s here once warm. Here torch is imported once by this server and once by its
forkserver (multiprocessing keeps it for the life of this process), for all launches,
and every rank of every launch is forked from that preloaded process. The ranks are
still new processes, and torchrun's agent is still torchrun's.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from importlib import import_module


def serve() -> None:
    answers = os.fdopen(os.dup(1), "w")  # stdout answers; fds 1 and 2 go to each launch's log
    for line in sys.stdin:
        request = json.loads(line)
        os.chdir(request["cwd"])  # the ranks start in the parent's directory (multiprocessing)
        with open(request["log"], "w", encoding="utf-8") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                import_module(request["launcher"]).main(request["argv"])
                returncode = 0
            except (Exception, SystemExit):  # a rank failed (ChildFailedError), or the launch
                # did (torchrun's parser exits on a bad option): in the log, and the server goes on
                traceback.print_exc()
                returncode = 1
            sys.stdout.flush()
            sys.stderr.flush()
        answers.write(json.dumps({"returncode": returncode}) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
