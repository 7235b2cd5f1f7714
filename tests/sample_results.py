"""A made-up verification result, for the tests of the report, the badges and the scheduler."""

from __future__ import annotations

import dataclasses

from docverify.results.report import SnippetResult

_SAMPLE = SnippetResult(
    snippet="snippets/demo/page.py",
    device="cpu",
    outcome="passed",
    sections=("demo",),
    duration_s=0.1,
    date="2026-01-02",
    commit="abc1234",
    torch="2.14.1",
    python="3.11.7",
    machine="test machine",
    sha256="",
)


def sample_result(snippet: str, **fields: object) -> SnippetResult:
    """A passing CPU result for `snippet`; any other field given by keyword."""
    return dataclasses.replace(_SAMPLE, snippet=snippet, **fields)
