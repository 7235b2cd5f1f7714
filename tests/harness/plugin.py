"""pytest options, markers and the verification report (loaded by tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docverify import verification
from docverify.snippets import SNIPPETS_DIR

os.environ.setdefault("MPLBACKEND", "Agg")

_results: list[verification.SnippetResult] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    # `--update-examples` itself comes from pytest-examples' plugin.
    parser.addoption(
        "--snippets-root",
        default=str(SNIPPETS_DIR),
        help="folder of snippet files to verify (default: snippets/)",
    )
    parser.addoption(
        "--reports-dir",
        default=str(verification.REPORTS_DIR),
        help="where the verification report is written (default: .reports/)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.snippets_root = Path(config.getoption("--snippets-root")).resolve()


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if cuda_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA: no CUDA device on this machine")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Remember each snippet's outcome (on the xdist controller too: reports are forwarded)."""
    props = dict(report.user_properties)
    if "snippet" not in props or report.when != "call" or report.outcome == "skipped":
        return
    if Path(props["snippet"]).is_absolute():
        return  # outside the repository: a throw-away snippet, e.g. of the harness's own tests
    _results.append(
        verification.SnippetResult(
            snippet=props["snippet"],
            device=props["device"],
            outcome=report.outcome,
            sections=tuple(props["sections"]),
            duration_s=round(report.duration, 3),
            **verification.run_environment(),
        )
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput") or not _results:
        return  # xdist workers leave the writing to the controller
    if session.config.getoption("update_examples"):
        return  # outputs were rewritten, not verified
    verification.merge_results(_results, Path(session.config.getoption("--reports-dir")))
    _results.clear()
