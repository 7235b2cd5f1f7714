"""The warm worker behind live verification in `mkdocs serve` (started by docverify.live).

It imports torch and the harness once, then answers one request per line on
stdin, `{"snippet": "snippets/x/y.py", "device": "cpu"}`, with one JSON line on
stdout (see `check`). Each run happens in a fork of this warm process: it
starts in tens of milliseconds, leaves nothing behind for the next run (a
changed helper module is imported afresh), and a crash or a hang in C code
takes down only the fork.

The check is the suite's own (tests/test_snippets.py): `run_in_process`, then
`expected_source` and `output_mismatch` on what the snippet printed. Whatever
else writes to stdout (the snippet, a library) goes to stderr, so that stdout
carries only the replies.

    python -m docverify.live_worker            # PYTHONPATH=tests:src, in the repository root
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

# Imported now, so that no run pays for them: everything snippets import often.
WARM_MODULES = (
    "numpy",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.utils.data",
    "torchvision",
    "torchvision.transforms",
    "torchvision.transforms.v2",
    "einops",
    "PIL.Image",
    "matplotlib.pyplot",
    "docverify.figures",
)
# Seconds a fork may run past the snippet's own limit (SIGALRM) before it is killed.
GRACE_S = 5


def warm_up() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in WARM_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    import torch

    # Lazy set-up torch would otherwise redo in every fork: the first
    # manual_seed imports torch._dynamo (seconds), the first repr the printing code.
    torch.manual_seed(0)
    repr(torch.zeros(2, 2))
    # The harness itself (print_capture, isolation, run_snippet).
    import docverify.print_capture
    import docverify.run_snippet  # noqa: F401


def check(root: Path, rel: str, device: str) -> dict:
    """Run one snippet as the suite does; the reply `docverify.live` reads.

    Keys: snippet, device, outcome ("passed" or "failed"), sha256 (of the bytes
    that ran), sections, duration_s, detail (the `#>` diff or the traceback, ""
    when passed).
    """
    from docverify import verification
    from docverify.print_capture import expected_source, output_mismatch
    from docverify.run_snippet import run_in_process
    from docverify.snippets import load

    path = root / rel
    snippet = load(path)
    sha256 = verification.verified_sha256(path, snippet.source)
    reply = {
        "snippet": rel,
        "device": device,
        "sha256": sha256,
        "sections": [s.name for s in snippet.sections],
    }
    workdir = Path(tempfile.mkdtemp(prefix="live-verify-"))
    start = time.perf_counter()
    try:
        records = run_in_process(snippet, device, workdir)
        expected = expected_source(snippet.source, snippet.path, records)
        mismatch = output_mismatch(rel, snippet.source, expected)
    except BaseException as exc:  # a snippet may raise anything, SystemExit too
        mismatch = snippet_traceback(exc, path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    reply["duration_s"] = round(time.perf_counter() - start, 3)
    reply["outcome"] = "failed" if mismatch else "passed"
    reply["detail"] = mismatch or ""
    return reply


def snippet_traceback(exc: BaseException, path: Path) -> str:
    """The traceback from the snippet's first frame on (the harness's frames left out)."""
    tb = exc.__traceback__
    target = str(path.resolve())
    while tb is not None and tb.tb_frame.f_code.co_filename != target:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    if tb is not None:
        lines[0] = "Traceback (most recent call last):\n"
    return "".join(lines).rstrip("\n")


def check_in_fork(root: Path, rel: str, device: str) -> dict:
    """`check` in a forked child; a crash or a hang becomes a failed reply."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, reply through the pipe, leave without cleanup handlers
        status = 0
        try:
            os.close(read_end)
            try:
                reply = check(root, rel, device)
            except BaseException as exc:  # e.g. the file no longer parses
                from docverify.verification import file_sha256

                reply = _failed(rel, device, "".join(traceback.format_exception_only(exc)))
                reply["sha256"] = file_sha256(root / rel) or ""
            data = json.dumps(reply).encode("utf-8")
            while data:
                data = data[os.write(write_end, data) :]
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    limit = _timeout_s(root / rel) + GRACE_S
    deadline = time.monotonic() + limit
    chunks: list[bytes] = []
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return _failed(rel, device, f"{rel} ran longer than {limit} s and was stopped")
            chunk = pipe.read(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if chunks:
        return json.loads(b"".join(chunks))
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {status}"
    return _failed(rel, device, f"the run of {rel} crashed ({how}) before it could reply")


def _timeout_s(path: Path) -> int:
    from docverify.snippets import DEFAULT_TIMEOUT_S, load

    try:
        return load(path).timeout_s
    except Exception:  # unreadable: the run itself will say why
        return DEFAULT_TIMEOUT_S


def _failed(rel: str, device: str, detail: str) -> dict:
    return {"snippet": rel, "device": device, "outcome": "failed", "sha256": "", "detail": detail}


def main() -> int:
    root = Path.cwd()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # stray prints and library output go to the terminal, not into the replies
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for `mkdocs serve`; it closes stdin
    start = time.perf_counter()
    warm_up()
    import torch

    from docverify.verification import run_environment

    environment = {k: run_environment()[k] for k in ("torch", "python", "machine")}
    ready = {
        "ready": True,
        "torch": torch.__version__,
        "environment": environment,
        "warm_up_s": time.perf_counter() - start,
    }
    replies.write(json.dumps(ready) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        reply = check_in_fork(root, request["snippet"], request.get("device", "cpu"))
        replies.write(json.dumps(reply) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
