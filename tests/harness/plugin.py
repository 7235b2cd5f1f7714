"""pytest options and markers for the snippet suite (loaded by tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.snippet_file import SNIPPETS_DIR

os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_addoption(parser: pytest.Parser) -> None:
    # `--update-examples` itself comes from pytest-examples' plugin.
    parser.addoption(
        "--snippets-root",
        default=str(SNIPPETS_DIR),
        help="folder of snippet files to verify (default: snippets/)",
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
