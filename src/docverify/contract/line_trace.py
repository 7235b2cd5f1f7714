"""Which lines of a snippet a run executes, and which shown lines no run reaches.

An `assert` in a branch that no run takes proves nothing, and a page that shows
such a line shows code nobody ran. So every run records the lines of its
snippet file that executed (`sys.settrace`, for that one file: other code runs
untraced), including in the processes it forks (DataLoader workers, ranks
started with `fork`), which report theirs when they end. The snippet's test
then fails on every statement inside a shown section that did not run
(`unreached`), unless it is marked with what it needs, on the line itself or on
the header of the block it is in: `# requires: cuda` (checked by the GPU run
instead), or a Python or torch version (`# requires: python>=3.13`,
`# requires: torch<2.6`; checked where that version runs: `make matrix`, or
`make test` on that Python). A header's mark covers its own block only: the
`elif`, `else`, `except` and `finally` blocks after it have headers of their own,
so a CPU run that takes the `elif` of an `if ...:  # requires: cuda` is checked.
"""

from __future__ import annotations

import ast
import functools
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

_REQUIRES = re.compile(r"#.*\brequires:\s*(cuda|(?:python|torch)\s*(?:>=|<)\s*[\d.]+)")
# Blocks of a compound statement that follow a header other than the statement's first.
_OTHER_BLOCKS = ("orelse", "handlers", "finalbody")
_ELSE = re.compile(r"\s*(?:else|finally)\s*:")
_VERSION = re.compile(r"(?P<what>python|torch)\s*(?P<op>>=|<)\s*(?P<version>[\d.]+)")


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


# Once per snippet text (callers only read the result): the proof-link phase asks for
# every embedded part of every page that shows or links a check, and parsing again
# was three quarters of a build.
@functools.lru_cache(maxsize=512)
def statements(source: str) -> dict[int, str | None]:
    """Line of each statement (docstrings left out, they never run) -> what it requires.

    None for a line every run reaches; "cuda" or a version ("python>=3.13") for a line
    marked so, or inside a block whose header is.
    """
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
    found: dict[int, str | None] = {}

    def visit(node: ast.AST, outer: str | None, own: str | None) -> None:
        # `outer`: what the block holding `node` requires; `own`: what `node`'s own block
        # (its body) requires, its header's mark included. The `elif`, `else`, `except`
        # and `finally` blocks of a statement have headers of their own: a mark on the
        # `if` (`for`, `while`, `try`) line does not reach them.
        for field, value in ast.iter_fields(node):
            required = own
            if field in _OTHER_BLOCKS and isinstance(node, ast.stmt):
                required = outer
                if field in ("orelse", "finalbody") and value:
                    required = outer or _header_mark(lines, value[0])
            for child in value if isinstance(value, list) else [value]:
                if not isinstance(child, ast.AST):
                    continue
                # Docstrings and `global`/`nonlocal` declarations are not executed.
                runs = (
                    not isinstance(child, ast.Global | ast.Nonlocal) and id(child) not in docstrings
                )
                if isinstance(child, ast.stmt | ast.ExceptHandler) and runs:
                    mark = _REQUIRES.search(lines[child.lineno - 1])
                    needs = required or (mark[1].replace(" ", "") if mark else None)
                    if isinstance(child, ast.stmt):  # an `except` line is a header, not run
                        found[child.lineno] = found.get(child.lineno) or needs
                    visit(child, required, needs)
                else:
                    visit(child, required, required)

    visit(tree, None, None)
    return found


def _header_mark(lines: list[str], first: ast.stmt) -> str | None:
    """What the `else:` or `finally:` line above the block starting with `first` requires.

    None for an `elif` (its own `if` statement carries its mark) and where the line
    requires nothing.
    """
    number = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    if lines[number - 1].lstrip().startswith("elif"):
        return None
    for text in reversed(lines[: number - 1]):
        if _ELSE.match(text):
            mark = _REQUIRES.search(text)
            return mark[1].replace(" ", "") if mark else None
        if text.strip() and not text.lstrip().startswith("#"):
            return None
    return None


def requirement_met(required: str | None, cuda_present: bool) -> bool:
    """Whether this process can reach a line that requires `required`."""
    if required is None:
        return True
    if required == "cuda":
        return cuda_present
    found = _VERSION.fullmatch(required)
    if found["what"] == "python":
        have = sys.version_info[:2]
    else:
        import torch

        have = tuple(int(p) for p in re.findall(r"\d+", torch.__version__)[:2])
    want = tuple(int(p) for p in found["version"].split("."))
    return have >= want if found["op"] == ">=" else have < want


def unreached(
    rel: str, source: str, sections, executed: set[int], *, cuda_present: bool, device: str
) -> list[Problem]:
    """Statements inside the shown sections that the run did not execute.

    Each line is judged where it can run: on a machine without CUDA (CI), every
    line not marked `# requires: cuda` whose version requirement this Python and
    torch meet; on a GPU machine, in a run on the CUDA device, the lines marked
    `# requires: cuda` (there a line only a machine without a GPU reaches cannot
    run, and the CPU machine has checked it).
    """
    if cuda_present and device != "cuda":
        return []
    shown = {n for s in sections for n in range(s.start_line + 1, s.end_line)}
    return [
        Problem(
            rel,
            lineno,
            "a shown line that no run executes: its check proves nothing (reach it, move "
            "it out of the page, or mark what it needs: `# requires: cuda`, "
            "`# requires: python>=3.13`)",
        )
        for lineno, required in sorted(statements(source).items())
        if lineno in shown
        and lineno not in executed
        and (required == "cuda") == cuda_present
        and requirement_met(required, cuda_present)
    ]
