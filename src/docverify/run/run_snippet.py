"""Run one snippet on one device and return what it printed.

In-process runs share one interpreter per pytest worker (torch is imported
once), each in a fresh `__main__` module inside the guards of `isolation`.
Snippets declared `# launch: torchrun ...` run as real separate processes.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from docverify.contract.line_trace import lines_executed
from docverify.contract.snippets import SnippetFile
from docverify.run import isolation
from docverify.run.print_capture import PrintRecord, PrintRecorder

# The src/ this runner belongs to (src/docverify/run/run_snippet.py): never src/docverify,
# whose subpackages would be top-level modules there (its `site` hides the standard
# library's on Python 3.10, so a launched interpreter had no virtual environment).
SRC_DIR = Path(__file__).resolve().parents[2]


def run_in_process(
    snippet: SnippetFile, device: str, workdir: Path, executed: set[int] | None = None
) -> list[PrintRecord]:
    """Execute the snippet as `__main__`; exceptions propagate with the snippet's own file:line.

    `executed`, if given, receives the lines of the snippet file that ran
    (docverify.contract.line_trace), in this process and the processes it forks.
    """
    __tracebackhide__ = True
    path = snippet.path.resolve()
    # Compiled under its real path, so tracebacks and `#>` positions name the snippet file.
    code = compile(snippet.source, str(path), "exec", dont_inherit=True)
    with isolated_main(snippet, device, workdir, executed) as (module, recorder):
        exec(code, module.__dict__)
    return recorder.records


@contextmanager
def isolated_main(
    snippet: SnippetFile, device: str, workdir: Path, executed: set[int] | None = None
) -> Iterator[tuple[types.ModuleType, PrintRecorder]]:
    """A fresh `__main__` for the snippet and its print recorder, inside every isolation guard.

    The caller executes code in the module's namespace (run_in_process: the whole
    file; docverify.matrix.record: one top-level statement at a time).
    """
    path = snippet.path.resolve()
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    recorder = PrintRecorder(path)
    saved_main = sys.modules["__main__"]
    # As a reader's download runs: from an empty folder. Unless the snippet declares
    # `# requires: checkout`, argv[0] names a file in the scratch folder, so that code
    # which finds this repository from its own path fails here, as it would there.
    argv0 = path if snippet.needs_checkout else workdir / path.name
    with ExitStack() as guards:
        guards.enter_context(isolation.process_state(path, workdir, device, argv0=argv0))
        guards.enter_context(isolation.torch_globals_restored())
        guards.enter_context(isolation.fresh_random_state())
        guards.enter_context(isolation.network_blocked())
        guards.enter_context(isolation.warnings_are_errors())
        guards.enter_context(isolation.time_limit(snippet.timeout_s, snippet.rel))
        guards.enter_context(recorder.installed())
        if executed is not None:
            guards.enter_context(lines_executed(path, executed))
        # Classes defined by the snippet must be picklable (DataLoader workers).
        sys.modules["__main__"] = module
        try:
            yield module, recorder
        finally:
            sys.modules["__main__"] = saved_main


@dataclass(frozen=True)
class LaunchResult:
    returncode: int
    output: str  # stdout and stderr of the launcher and all ranks
    records: dict[int, list[PrintRecord]]  # prints per rank
    executed: frozenset[int] = frozenset()  # lines of the snippet any rank ran

    def rank_output(self, rank: int) -> str:
        return "\n".join(record.text for record in self.records.get(rank, []))


# Warm launchers (docverify.run.launch_server), one per device. A server's ranks inherit the
# environment it started with: this process's at the first launch on that device (imports
# such as Material's change os.environ later; a new server for each change would be cold).
_launchers: dict[str, subprocess.Popen] = {}


def _launcher_for(device: str) -> subprocess.Popen:
    server = _launchers.get(device)
    if server is None or server.poll() is not None:
        env = {
            **os.environ,
            "NOTES_DEVICE": device,
            # No empty entry: it would put the server's directory on the ranks' sys.path.
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")])
            ),
            "PYTHONUNBUFFERED": "1",
            "PYTHONWARNINGS": "error",
            "OMP_NUM_THREADS": "1",
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "docverify.run.launch_server"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            # Not this checkout: `-m` puts the directory first on sys.path (each rank then
            # replaces that entry with its snippet's folder, as `python SNIPPET` has it).
            cwd=tempfile.gettempdir(),
            start_new_session=True,  # so a timeout can stop it, its forkserver and every rank at once
        )
        _launchers[device] = server
    return server


@atexit.register
def _stop_launchers() -> None:
    for server in _launchers.values():
        server.stdin.close()  # end of input: the server returns
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        _kill(server)  # its forkserver would notice only later that the server is gone


def _kill(server: subprocess.Popen) -> None:
    """Stop the server, its forkserver and every rank (one session), and close its pipes."""
    with contextlib.suppress(ProcessLookupError):  # none of them left
        os.killpg(server.pid, signal.SIGKILL)
    with server:  # closes the pipes and waits
        pass


def run_launched(
    snippet: SnippetFile,
    device: str,
    workdir: Path,
    *,
    launcher: str = "docverify.run.launched_entry",
) -> LaunchResult:
    """Run `torchrun <args> snippet` for real, with its rendezvous on localhost.

    `launcher`: the module whose `main(argv)` launches (docverify.matrix.launch records per statement).
    """
    capture_dir = workdir / "prints"
    capture_dir.mkdir(parents=True, exist_ok=True)
    # torchrun's own parser and launcher, with a recording entry point (docverify.run.launched_entry);
    # it sets up what `--standalone` does: a free local port, so parallel tests never collide.
    argv = [
        *snippet.launch_args,
        "--max-restarts=0",
        f"--log-dir={workdir / 'torchrun-logs'}",  # not a stray /tmp/torchelastic_* per run
        str(snippet.path.resolve()),
        str(capture_dir),
    ]
    log = workdir / "launch.log"
    server = _launcher_for(device)
    request = {"launcher": launcher, "argv": argv, "cwd": str(workdir), "log": str(log)}
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    ready, _, _ = select.select([server.stdout], [], [], snippet.timeout_s)
    answer = server.stdout.readline() if ready else ""
    logs = [log, *sorted(capture_dir.glob("rank*.log"))]
    output = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in logs if p.is_file())
    if not answer:  # the time limit, or the server died: stop it and every rank
        _kill(server)
        what = f"ran longer than {snippet.timeout_s} s" if not ready else "ended its launcher"
        raise isolation.SnippetTimeoutError(f"{snippet.rel} under torchrun {what}:\n{output}")
    records, executed = {}, set()
    for path in capture_dir.glob("rank*.json"):
        rank = json.loads(path.read_text(encoding="utf-8"))
        records[int(path.stem.removeprefix("rank"))] = [PrintRecord(**r) for r in rank["prints"]]
        executed.update(rank["executed"])
    return LaunchResult(json.loads(answer)["returncode"], output, records, frozenset(executed))
