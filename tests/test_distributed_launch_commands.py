"""docs/distributed/launch_commands.sh, the command lines launching.md shows, and what checks them.

The page shows the shell file; snippets/distributed/launching.py holds the same
lines as COMMANDS, parses every one with its launcher's own parser and runs the
two static two-node lines on 127.0.0.1. These tests fail when the file and the
snippet drift apart, and when the single-node line stops being the launch that
tests/test_snippets.py runs for ddp_train.py.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from docverify.contract import snippets as snippet_file
from docverify.paths import DOCS_DIR

COMMANDS_FILE = DOCS_DIR / "distributed" / "launch_commands.sh"
LAUNCHING = snippet_file.SNIPPETS_DIR / "distributed" / "launching.py"
DDP_TRAIN = snippet_file.SNIPPETS_DIR / "distributed" / "ddp_train.py"


def shown_commands() -> list[str]:
    lines = COMMANDS_FILE.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def snippet_commands() -> list[str]:
    tree = ast.parse(LAUNCHING.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["COMMANDS"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{LAUNCHING}: no COMMANDS list")


def test_the_page_shows_the_commands_the_snippet_checks() -> None:
    assert shown_commands() == snippet_commands()


def test_the_single_node_line_is_how_the_suite_launches_the_training_script() -> None:
    import torch.distributed.run as torchrun

    single = shown_commands()[0].split()
    args = torchrun.parse_args(single[1:])
    launch = snippet_file.load(DDP_TRAIN).launch  # ("torchrun", "--nproc_per_node=2")
    assert single[0] == launch[0] == "torchrun"
    assert args.standalone  # the harness adds --standalone too
    assert args.nproc_per_node == torchrun.parse_args([*launch[1:], "x.py"]).nproc_per_node
    assert (DOCS_DIR.parent / args.training_script).resolve() == DDP_TRAIN.resolve()


def test_a_drift_between_page_and_snippet_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = tmp_path / "launch_commands.sh"
    text = COMMANDS_FILE.read_text(encoding="utf-8").replace(
        "--master_port=29500", "--master_port=1"
    )
    edited.write_text(text, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "COMMANDS_FILE", edited)
    assert shown_commands() != snippet_commands()
