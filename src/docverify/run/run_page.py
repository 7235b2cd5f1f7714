"""Run a page's program as a reader would run its downloaded script, and check its prints.

The program (docverify.contract.page_program) is written to `<workdir>/<page>.py`, the
file a reader downloads, and run by the snippet harness: in-process in a fresh
`__main__` with the same isolation guards as every snippet
(docverify.run.run_snippet.run_in_process), or under torchrun when the page shows a
launched script. Its prints are compared with the `#>` lines the page shows;
a failure names the page and the snippet file:line of the offending code.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import replace
from pathlib import Path

from docverify.contract.page_program import PageProgram
from docverify.contract.snippets import SnippetFile
from docverify.run.print_capture import expected_source, output_mismatch
from docverify.run.run_snippet import run_in_process, run_launched


class PageProgramError(AssertionError):
    """The page's code does not run on its own or does not print what the page shows."""


def _write_program(program: PageProgram, workdir: Path, source: str) -> SnippetFile:
    path = workdir / f"{program.stem}.py"
    path.write_text(source, encoding="utf-8")
    return SnippetFile(
        path=path,
        source=source,
        launch=program.launch,
        timeout_s=program.timeout_s,
        own_process=program.own_process,
    )


def _failure_line(program_path: Path, error: BaseException) -> int | None:
    """The deepest line of the program in the traceback of `error`."""
    lines = [
        frame.lineno
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == str(program_path)
    ]
    return lines[-1] if lines else None


def run_page_program(
    program: PageProgram, device: str, workdir: Path, source: str | None = None
) -> None:
    """Run the page's program (or `source`, its download as a reader gets it); raise
    PageProgramError naming page and snippet line on failure. Its prints must equal
    its `#>` lines."""
    __tracebackhide__ = True
    workdir.mkdir(parents=True, exist_ok=True)
    source = source or program.source
    snippet = _write_program(program, workdir, source)
    scratch = workdir / "run"
    scratch.mkdir(exist_ok=True)
    path = snippet.path.resolve()
    snippet = replace(snippet, path=path)
    if snippet.runs_apart:
        result = run_launched(snippet, device, scratch)
        if result.returncode != 0:
            lines = re.findall(rf'File "{re.escape(str(path))}", line (\d+)', result.output)
            at = program.where(int(lines[-1])) if lines else program.page
            raise PageProgramError(
                f"{at}: the page's code fails under `{program.run_command()}`:\n{result.output}"
            )
        records = result.records.get(0, [])
    else:
        try:
            records = run_in_process(snippet, device, scratch)
        except Exception as error:
            line = _failure_line(path, error)
            at = program.where(line) if line and source == program.source else program.page
            raise PageProgramError(
                f"{at}: the page's code, run on its own in page order, stops with "
                f"{type(error).__name__}: {error}"
            ) from error
    expected = expected_source(source, path, records)
    mismatch = output_mismatch(program.page, source, expected)
    if mismatch:
        at = program.where(mismatch.line) if source == program.source else program.page
        diff = mismatch.diff
        raise PageProgramError(
            f"{at}: run on its own, the page's code prints something else than the `#>` lines "
            "the page shows (code it hides, or the order of its blocks, changes what it prints; "
            f"the diff counts lines of the page program):\n{diff}"
        )
