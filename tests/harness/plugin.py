"""pytest options, markers and the verification report (loaded by tests/conftest.py).

Everything is found from pytest's root directory (the checkout under test):
snippets/ and .reports/ by default; `docverify` comes from its src/ (pyproject's
`pythonpath`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from docverify.results import report as snippet_report
from docverify.run.output_diffs import LineDiff, pinned_torch, render

os.environ.setdefault("MPLBACKEND", "Agg")

_results: list[snippet_report.SnippetResult] = []
_root = Path.cwd()  # the checkout under test: config.rootpath, set in pytest_configure
_output_diffs: list[LineDiff] = []


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # A virtual environment made before pytest-examples was dropped still has it,
    # and its plugin registers a flag of the same name and meaning.
    if not pluginmanager.has_plugin("examples"):
        parser.addoption(
            "--update-examples",
            action="store_true",
            default=False,
            help="rewrite the `#>` output lines of the snippets run instead of checking them",
        )
    parser.addoption(
        "--snippets-root",
        default=None,
        help="folder of snippet files to verify (default: snippets/ under the root directory)",
    )
    parser.addoption(
        "--reports-dir",
        default=None,
        help="where the verification report is written (default: .reports/ under the root directory)",
    )
    parser.addoption(
        "--output-diffs",
        default=None,
        metavar="PATH",
        help="also write every `#>` line printed differently to PATH (Markdown; `make verify-gpu`)",
    )


def pytest_configure(config: pytest.Config) -> None:
    global _root
    _root = config.rootpath
    snippets = config.getoption("--snippets-root") or _root / "snippets"
    reports = config.getoption("--reports-dir") or _root / ".reports"
    config.snippets_root = Path(snippets).resolve()
    config.reports_dir = Path(reports).resolve()
    # The marks test_snippets.py gives its cases (selected by `make verify-gpu`).
    for mark in (
        "cuda: needs a CUDA device; skipped with a reason where none is present",
        "device_dependent: output may change with whether CUDA is present (`make verify-gpu`)",
        "torchrun: launched as several processes with torchrun rather than run in-process",
    ):
        config.addinivalue_line("markers", mark)


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needs_cuda = [item for item in items if "cuda" in item.keywords]
    # Ask torch only when something needs CUDA: importing it costs seconds in an inner session.
    if not needs_cuda or cuda_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA: no CUDA device on this machine")
    for item in needs_cuda:
        item.add_marker(skip)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Remember each snippet's record, with the test's outcome and duration (on the xdist
    controller too: reports are forwarded, with the record as the test serialised it)."""
    props = dict(report.user_properties)
    if report.when == "call" and "output_diffs" in props:
        _output_diffs.extend(
            LineDiff(**{**d, "shown": tuple(d["shown"]), "printed": tuple(d["printed"])})
            for d in props["output_diffs"]
        )
    if "result" not in props or report.when != "call" or report.outcome == "skipped":
        return
    result = snippet_report.SnippetResult.from_dict(props["result"])
    if Path(result.snippet).is_absolute():
        return  # outside the repository: a throw-away snippet, e.g. of the harness's own tests
    _results.append(replace(result, outcome=report.outcome, duration_s=round(report.duration, 3)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        _write_output_diffs(session.config)
    if hasattr(session.config, "workerinput") or not _results:
        return  # xdist workers leave the writing to the controller
    if session.config.getoption("update_examples"):
        return  # outputs were rewritten, not verified
    snippet_report.merge_results(_results, session.config.reports_dir, root=_root)
    _results.clear()


def _write_output_diffs(config: pytest.Config) -> None:
    target = config.getoption("--output-diffs")
    if not target:
        return
    import torch

    cuda = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "not available"
    text = render(
        _output_diffs,
        torch_version=torch.__version__,
        pinned=pinned_torch(config.rootpath / "requirements.txt"),
        cuda=cuda,
    )
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(text, encoding="utf-8")
    _output_diffs.clear()
