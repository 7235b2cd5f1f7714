"""Record what a snippet prints, and keep its `#>` lines equal to it.

Why not pytest-examples' print check: it formats non-string print arguments
with black and wraps multi-line output in triple quotes, so `print(t)` of a 2-D
tensor would be recorded as a repr PyTorch never prints. The page must show
what `python snippets/x.py` really prints, so this module records the exact
text `print` writes (str() of each argument joined by `sep`, then `end`) and
writes one `#> ` line per output line, under the print call that ended it.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

OUTPUT_PREFIX = "#>"
# A `#>` line, and the output it shows (one place: output_diffs and notebook use it too).
OUTPUT_LINE = re.compile(rf"^\s*{OUTPUT_PREFIX}(?: (?P<text>.*))?$")


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_TEMPORARY = re.compile(re.escape(tempfile.gettempdir()) + r"/[^/\s'\"]+")


def normalised(text: str) -> str:
    """`text` with memory addresses as `0x…` and fresh temporary folders as `<tmp>`."""
    return _ADDRESS.sub("0x…", _TEMPORARY.sub("<tmp>", text))


@dataclass(frozen=True)
class PrintRecord:
    line: int  # line in the snippet file of the print() that ended this output
    text: str  # the output, without the newline that ended it


class PrintRecorder:
    """Stands in for builtins.print: records prints made from `path`, passes others on.

    What is recorded is exactly the text print() writes, `sep` and `end`
    included. Each record is one or more whole output lines, attributed to the
    print call that wrote their final newline: `print("a", end="")` then
    `print("b")` is one output line `ab`, shown under `print("b")`. Text still
    without a newline when recording stops belongs to the last print that wrote it.

    Two things differ on every run and are recorded in a fixed form (`normalised`):
    a memory address (`0x7f3a…`, as in a default repr) and a path in a fresh
    temporary folder (`/tmp/tmpk3j2ab/model.pt`), so that an error message that
    names them can be shown and checked.
    """

    def __init__(self, path: Path, *, echo: bool = False) -> None:
        self.path = str(path.resolve())
        self.records: list[PrintRecord] = []
        self._pending = ""  # the current output line, not yet ended by a newline
        self._pending_line: int | None = None
        self._real_print = builtins.print
        self._echo = echo

    def __call__(
        self,
        *args: object,
        sep: str | None = " ",
        end: str | None = "\n",
        file=None,
        flush: bool = False,
    ) -> None:
        line = self._caller_line()
        if line is None or file not in (None, sys.stdout):
            self._real_print(*args, sep=sep, end=end, file=file, flush=flush)
            return
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if not isinstance(sep, str) or not isinstance(end, str):
            # print()'s own TypeError ("sep must be None or a string, not int").
            self._real_print(sep=sep, end=end, file=_NOWHERE)
        text = sep.join(str(arg) for arg in args) + end
        self._write(line, normalised(text))
        if self._echo:
            self._real_print(text, end="", flush=flush)

    def _write(self, line: int, text: str) -> None:
        self._pending += text
        self._pending_line = line
        completed, newline, rest = self._pending.rpartition("\n")
        if newline:
            self.records.append(PrintRecord(line, completed))
            self._pending = rest

    def finish(self) -> None:
        """Record an output line that no newline ended (e.g. a last `print(x, end="")`)."""
        if self._pending and self._pending_line is not None:
            self.records.append(PrintRecord(self._pending_line, self._pending))
        self._pending, self._pending_line = "", None

    def _caller_line(self) -> int | None:
        # The innermost frame that belongs to the snippet: a print inside a
        # function defined in the snippet is recorded under that print call.
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                return frame.f_lineno
            frame = frame.f_back
        return None

    @contextmanager
    def installed(self) -> Iterator[PrintRecorder]:
        builtins.print = self
        try:
            yield self
        finally:
            builtins.print = self._real_print
            self.finish()


class _Nowhere:
    def write(self, text: str) -> None:
        pass


_NOWHERE = _Nowhere()


def print_call_end(tree: ast.Module, line: int) -> tuple[int, int]:
    """(last line, column) of the `print(...)` call that starts on `line`.

    A multi-line call `print(\n  x,\n)` is recorded at its first line; its
    output goes under its last. Without a print call there (print under another
    name), the output goes under `line` itself, at column 0.
    """
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and node.lineno == line
    ]
    if not calls:
        return line, 0
    call = min(calls, key=lambda node: node.col_offset)  # the outermost on that line
    return call.end_lineno or line, call.col_offset


def expected_source(source: str, path: Path, records: list[PrintRecord]) -> str:
    """The snippet as it must read after a run: every `#>` line written anew from what ran.

    One pass over the file as it is: the `#>` lines it has are left out, and under
    the last line of each print call that printed, its output is written. So a stale
    block (a print that printed nothing, a statement inserted between a print and
    its output) is gone, and line numbers never refer to a text already changed.
    """
    tree = ast.parse(source, filename=str(path))
    under: dict[int, tuple[int, list[str]]] = {}  # last line of a print call -> (column, text)
    for record in records:
        last_line, col = print_call_end(tree, record.line)
        under.setdefault(last_line, (col, []))[1].append(record.text)
    lines: list[str] = []
    for number, line in enumerate(source.splitlines(), start=1):
        if OUTPUT_LINE.match(line):
            continue
        lines.append(line)
        if number in under:
            col, texts = under[number]
            output = "\n".join(texts).split("\n")
            lines += [f"{' ' * col}{OUTPUT_PREFIX} {text}".rstrip() for text in output]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Mismatch:
    """Written `#>` lines that differ from what ran: where the first difference is, and the diff."""

    file: str
    line: int  # of the first differing line, in the text as written
    diff: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: `#>` output lines differ from what the snippet printed.\n"
            f"If the change is deliberate, run `make update-examples`.\n{self.diff}"
        )


def output_mismatch(rel_path: str, actual: str, expected: str) -> Mismatch | None:
    """Where `actual` (as written) and `expected` (as printed) differ, or None when they agree."""
    if actual == expected:
        return None
    actual_lines = actual.splitlines()
    expected_lines = expected.splitlines()
    matcher = difflib.SequenceMatcher(a=actual_lines, b=expected_lines, autojunk=False)
    first = next(op for op in matcher.get_opcodes() if op[0] != "equal")
    diff = "\n".join(
        difflib.unified_diff(
            actual_lines,
            expected_lines,
            fromfile=f"{rel_path} (as written)",
            tofile=f"{rel_path} (as printed)",
            lineterm="",
            n=2,
        )
    )
    return Mismatch(rel_path, first[1] + 1, diff)
