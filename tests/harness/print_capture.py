"""Record what a snippet prints, and keep its `#>` lines equal to it.

Why not pytest-examples' own print check: version 0.0.18 formats non-string
print arguments with black and wraps multi-line output in triple quotes, so
`print(t)` of a 2-D tensor would be recorded as a repr PyTorch never prints.
The page must show what `python snippets/x.py` really prints, so this module
records the exact text `print` writes (str() of each argument joined by `sep`)
and writes one `#> ` line per output line. From pytest-examples it reuses only
what is format-neutral: `CodeExample` and `find_print_location` (which finds
the last line of a multi-line `print(...)` call).
"""

from __future__ import annotations

import builtins
import difflib
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pytest_examples import CodeExample
from pytest_examples.run_code import find_print_location

OUTPUT_PREFIX = "#>"
_OUTPUT_LINE = re.compile(rf"^\s*{OUTPUT_PREFIX}(?: |$)")


@dataclass(frozen=True)
class PrintRecord:
    line: int  # line in the snippet file of the print() that wrote this text
    text: str


class PrintRecorder:
    """Stands in for builtins.print: records prints made from `path`, passes others on."""

    def __init__(self, path: Path, *, echo: bool = False) -> None:
        self.path = str(path.resolve())
        self.records: list[PrintRecord] = []
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
        text = (" " if sep is None else sep).join(str(arg) for arg in args)
        self.records.append(PrintRecord(line, text))
        if self._echo:
            self._real_print(text, end=end, flush=flush)

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


def source_with_outputs(source: str, path: Path, records: list[PrintRecord]) -> str:
    """`source` with every `#>` block replaced by what the recorded prints wrote."""
    example = CodeExample.create(source, path=path)
    lines = source.splitlines()
    # Walk bottom-up so that inserting lines never shifts a position still to visit.
    by_line: dict[int, list[str]] = {}
    for record in records:
        by_line.setdefault(record.line, []).append(record.text)
    for print_line in sorted(by_line, reverse=True):
        last_line, col = find_print_location(example, print_line)
        index = last_line  # 0-based index of the line after the print call
        while index < len(lines) and _OUTPUT_LINE.match(lines[index]):
            del lines[index]
        indent = " " * col
        output = "\n".join(by_line[print_line]).split("\n")
        lines[index:index] = [f"{indent}{OUTPUT_PREFIX} {text}".rstrip() for text in output]
    return "\n".join(lines) + "\n"


def strip_unprinted_outputs(source: str, records: list[PrintRecord], path: Path) -> str:
    """Drop `#>` blocks under prints that printed nothing this run (stale output)."""
    example = CodeExample.create(source, path=path)
    printed_after = {find_print_location(example, r.line)[0] for r in records}
    kept: list[str] = []
    lines = source.splitlines()
    for i, line in enumerate(lines):
        if _OUTPUT_LINE.match(line):
            block_start = i
            while block_start > 0 and _OUTPUT_LINE.match(lines[block_start - 1]):
                block_start -= 1
            if block_start not in printed_after:
                continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def expected_source(source: str, path: Path, records: list[PrintRecord]) -> str:
    """The snippet as it must read after a run: outputs in place, stale ones gone."""
    return source_with_outputs(strip_unprinted_outputs(source, records, path), path, records)


def output_mismatch(rel_path: str, actual: str, expected: str) -> str | None:
    """A report naming file:line and showing a diff, or None when they agree."""
    if actual == expected:
        return None
    actual_lines = actual.splitlines()
    expected_lines = expected.splitlines()
    matcher = difflib.SequenceMatcher(a=actual_lines, b=expected_lines, autojunk=False)
    first = next(op for op in matcher.get_opcodes() if op[0] != "equal")
    line = first[1] + 1
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
    return (
        f"{rel_path}:{line}: `#>` output lines differ from what the snippet printed.\n"
        f"If the change is deliberate, run `make update-examples`.\n{diff}"
    )
