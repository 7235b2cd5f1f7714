"""One live verification run, in a child process that has torch imported already.

docverify.site.live starts each run as a `multiprocessing` process of the
`forkserver` kind: a server process, started once per `mkdocs serve`, imports
torch and the modules snippets use (`WARM_MODULES`, `set_forkserver_preload`),
and every run is a fresh fork of that single-threaded server. So a run starts
in tens of milliseconds, leaves nothing behind for the next one (a changed
helper module is imported afresh), and a crash or a hang in C code takes down
only that child. The MkDocs process itself never imports torch.

The check is the suite's own (tests/test_snippets.py): `run_in_process`, then
`expected_source` and `output_mismatch` on what the snippet printed.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import traceback
from pathlib import Path

# Imported by the forkserver, so that no run pays for them: what snippets import often.
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
    "docverify.run.run_snippet",
    __name__,
)


def check(root: Path, rel: str, device: str, via: str) -> dict:
    """Run one snippet as the suite does.

    The reply: `result`, the run's record (docverify.results.report.record, as
    `to_dict`: the form the test run writes too), and `detail` (the `#>` diff or the
    traceback, "" when passed).
    """
    from docverify.contract.snippets import load
    from docverify.results import report
    from docverify.run.print_capture import expected_source, output_mismatch
    from docverify.run.run_snippet import run_in_process

    path = root / rel
    snippet = load(path)
    sha256 = report.verified_sha256(path, snippet.source)
    workdir = Path(tempfile.mkdtemp(prefix="live-verify-"))
    start = time.perf_counter()
    try:
        records = run_in_process(snippet, device, workdir)
        expected = expected_source(snippet.source, snippet.path, records)
        mismatch = str(output_mismatch(rel, snippet.source, expected) or "")
    except BaseException as exc:  # a snippet may raise anything, SystemExit too
        mismatch = snippet_traceback(exc, path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = report.record(
        rel,
        device,
        root=root,
        sha256=sha256,
        sections=tuple(s.name for s in snippet.sections),
        outcome="failed" if mismatch else "passed",
        duration_s=time.perf_counter() - start,
        via=via,
    )
    return {"result": result.to_dict(), "detail": mismatch or ""}


def snippet_traceback(exc: BaseException, path: Path) -> str:
    """The traceback from the snippet's first frame on (the runner's frames left out)."""
    tb = exc.__traceback__
    target = str(path.resolve())
    while tb is not None and tb.tb_frame.f_code.co_filename != target:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    if tb is not None:
        lines[0] = "Traceback (most recent call last):\n"
    return "".join(lines).rstrip("\n")


def check_and_send(connection, root: str, rel: str, device: str, via: str) -> None:
    """The child's body: run `check` and send its reply to the parent."""
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        reply = check(Path(root), rel, device, via)
    except BaseException as exc:  # e.g. the file is gone: the parent shows why
        reply = {"result": None, "detail": "".join(traceback.format_exception_only(exc))}
    connection.send(reply)
    connection.close()
