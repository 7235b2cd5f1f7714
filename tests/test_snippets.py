"""Run every snippet and check every `#>` line it shows.

One test per (snippet file, device). In-process by default; `# launch: torchrun`
snippets run as real processes and their rank-0 prints are checked.
`pytest --update-examples` rewrites the `#>` lines instead of checking them.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from docverify.contract import snippets as snippet_file
from docverify.contract.line_trace import unreached
from docverify.matrix.accept import recorded_source
from docverify.problems import listed
from docverify.results import report
from docverify.run.output_diffs import output_line_diffs
from docverify.run.print_capture import PrintRecord, expected_source, output_mismatch
from docverify.run.run_snippet import run_in_process, run_launched
from harness.plugin import cuda_available


def _cases(root: Path) -> list:
    cases = []
    for path in snippet_file.discover(root):
        snippet = snippet_file.load(path)
        for device in snippet.devices:
            marks = [pytest.mark.cuda] if device == "cuda" else []
            if device_dependent(snippet):
                marks.append(pytest.mark.device_dependent)
            if snippet.launched:
                marks.append(pytest.mark.torchrun)
            rel = snippet.rel
            cases.append(pytest.param(snippet, device, id=f"{rel}[{device}]", marks=marks))
    return cases


def device_dependent(snippet: snippet_file.SnippetFile) -> bool:
    """Whether a snippet's run can change with the presence of CUDA (run by `make verify-gpu`).

    Deliberately wide: any mention of CUDA, a CUDA device in `# devices:`, or a
    torchrun launch (which picks NCCL or gloo by what the machine has).
    """
    return "cuda" in snippet.devices or snippet.launched or "cuda" in snippet.source.lower()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "snippet" in metafunc.fixturenames:
        cases = _cases(metafunc.config.snippets_root)
        if not cases:
            raise pytest.UsageError(f"no snippet files under {metafunc.config.snippets_root}")
        metafunc.parametrize(("snippet", "device"), cases)


def test_snippet(
    snippet: snippet_file.SnippetFile, device: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # The run's record (docverify.results.report): harness.plugin writes it to the report
    # (.reports/<device>.json) with this test's outcome and duration. Until the run has
    # ended it holds no executed lines; the bytes it verifies are those read at collection.
    def record(executed: set[int]) -> None:
        result = report.record(
            snippet.rel,
            device,
            root=request.config.rootpath,
            sha256=report.verified_sha256(snippet.path, snippet.source),
            sections=tuple(s.name for s in snippet.sections),
            executed_lines=tuple(executed),
        )
        request.node.user_properties.append(("result", result.to_dict()))

    executed: set[int] = set()
    record(executed)
    if snippet.runs_apart:
        result = run_launched(snippet, device, tmp_path)
        executed |= result.executed
        assert result.returncode == 0, f"{snippet.rel} failed under torchrun:\n{result.output}"
        records: list[PrintRecord] = result.records.get(0, [])
        # A page shows one stream of `#>` lines, rank 0's; a reader running torchrun
        # sees every rank's prints, interleaved.
        others = [
            f"rank {rank}, line {r.line}"
            for rank in sorted(result.records)
            if rank
            for r in result.records[rank]
        ]
        if others:
            pytest.fail(
                f"{snippet.rel}: only rank 0 may print (guard with `if rank == 0:`), "
                f"but prints came from: {', '.join(others)}",
                pytrace=False,
            )
    else:
        records = run_in_process(snippet, device, tmp_path, executed)
    record(executed)

    # A `#>` line cannot show trailing whitespace, so a reader comparing what the
    # script printed with the page would find lines that differ.
    trailing = sorted({r.line for r in records if any(t != t.rstrip() for t in r.text.split("\n"))})
    if trailing:
        lines = ", ".join(f"{snippet.rel}:{line}" for line in trailing)
        pytest.fail(
            f"printed lines end in whitespace, which `#>` lines cannot show: {lines}", pytrace=False
        )

    expected = expected_source(snippet.source, snippet.path, records)
    if request.config.getoption("update_examples"):
        if expected != snippet.source:
            snippet.path.write_text(expected, encoding="utf-8")
        return
    rootpath = request.config.rootpath
    mismatch = output_mismatch(snippet.rel, snippet.source, expected)
    if (
        mismatch
        and recorded_source(snippet.rel, snippet.source, snippet.path, rootpath) == expected
    ):
        # Another declared stack (Python 3.13, say), printing exactly what its current
        # version-matrix record says, which the page shows under the block.
        mismatch = None
    if mismatch:
        # Read by harness.plugin for `--output-diffs` (runs on another torch, e.g. a GPU machine).
        diffs = output_line_diffs(snippet.rel, device, snippet.source, expected)
        request.node.user_properties.append(("output_diffs", [asdict(d) for d in diffs]))
        pytest.fail(str(mismatch), pytrace=False)
    # Every statement the pages show ran (or, marked `# requires: cuda`, runs on a GPU).
    problems = unreached(
        snippet.rel,
        snippet.source,
        snippet.sections,
        executed,
        cuda_present=cuda_available(),
        device=device,
    )
    if problems:
        pytest.fail(listed("Shown lines no run executes:", problems), pytrace=False)
