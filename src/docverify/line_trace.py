"""Which lines of a snippet a run executes, and which shown lines no run reaches.

An `assert` in a branch that no run takes proves nothing, and a page that shows
such a line shows code nobody ran. So every run records the lines of its
snippet file that executed (`sys.settrace`, for that one file: other code runs
untraced), including in the processes it forks (DataLoader workers, ranks
started with `fork`), which report theirs when they end. The snippet's test
then fails on every statement inside a shown section that did not run
(`unreached`), unless it is marked `# requires: cuda` (on the line itself, or on
the header of the block it is in): those are checked by the GPU run instead.
"""

from __future__ import annotations

import ast
import json
import multiprocessing.util
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docverify.problems import Problem

_CUDA_ONLY = re.compile(r"#.*\brequires:\s*cuda\b")


class _Trace:
    """The trace in progress: what a forked child inherits, and where it reports."""

    def __init__(self, executed: set[int], spool: Path) -> None:
        self.executed, self.spool = executed, spool


def _in_forked_child(trace: _Trace) -> None:
    """In a child that multiprocessing forked: report the lines it runs when it ends."""
    trace.executed.clear()

    def report() -> None:
        out = trace.spool / f"pid{os.getpid()}.json"
        out.write_text(json.dumps(sorted(trace.executed)), encoding="utf-8")

    # Called by multiprocessing's own exit of the child (Process._bootstrap), before os._exit.
    multiprocessing.util.Finalize(None, report, exitpriority=100)


@contextmanager
def lines_executed(path: Path, executed: set[int]) -> Iterator[None]:
    """Add to `executed` the lines of `path` that run inside the block, here and in forks."""
    target = str(path.resolve())

    def line(frame, event, arg):
        if event == "line":
            executed.add(frame.f_lineno)
        return line

    def call(frame, event, arg):
        return line if frame.f_code.co_filename == target else None

    previous = sys.gettrace()
    with tempfile.TemporaryDirectory(prefix="lines-") as spool:
        trace = _Trace(executed, Path(spool))
        # Children started by multiprocessing (DataLoader workers, forked ranks) inherit
        # the trace; this runs in each after the fork, while `trace` is alive.
        multiprocessing.util.register_after_fork(trace, _in_forked_child)
        sys.settrace(call)
        try:
            yield
        finally:
            sys.settrace(previous)
            for child in Path(spool).glob("pid*.json"):
                executed.update(json.loads(child.read_text(encoding="utf-8")))


def statements(source: str) -> dict[int, bool]:
    """Line of each statement (docstrings left out, they never run) -> marked CUDA-only?"""
    tree = ast.parse(source)
    lines = source.splitlines()
    docstrings = {
        id(body[0])
        for node in ast.walk(tree)
        if isinstance(body := getattr(node, "body", None), list)
        and body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    }
    found: dict[int, bool] = {}

    def visit(node: ast.AST, cuda_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            # Docstrings and `global`/`nonlocal` declarations are not executed.
            runs = not isinstance(child, ast.Global | ast.Nonlocal) and id(child) not in docstrings
            if isinstance(child, ast.stmt) and runs:
                marked = cuda_only or bool(_CUDA_ONLY.search(lines[child.lineno - 1]))
                found[child.lineno] = found.get(child.lineno, False) or marked
                visit(child, marked)
            else:
                visit(child, cuda_only)

    visit(tree, False)
    return found


def unreached(
    rel: str, source: str, sections, executed: set[int], *, cuda_present: bool, device: str
) -> list[Problem]:
    """Statements inside the shown sections that the run did not execute.

    Each line is judged where it can run: on a machine without CUDA (CI), every
    line not marked `# requires: cuda`; on a GPU machine, in a run on the CUDA
    device, the marked ones (there a line that only a machine without a GPU
    reaches cannot run, and the CPU machine has checked it).
    """
    if cuda_present and device != "cuda":
        return []
    shown = {n for s in sections for n in range(s.start_line + 1, s.end_line)}
    return [
        Problem(
            rel,
            lineno,
            "a shown line that no run executes: its check proves nothing (reach it, move "
            "it out of the page, or mark it `# requires: cuda` if only a GPU run reaches it)",
        )
        for lineno, cuda_only in sorted(statements(source).items())
        if lineno in shown and lineno not in executed and cuda_only == cuda_present
    ]
