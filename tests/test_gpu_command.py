"""`make verify-gpu` (scripts/verify_gpu.py): what it selects and what it writes.

The command itself runs only where a GPU is lent; these checks run everywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch  # noqa: F401  (loaded before pytester: see conftest.inner_suite)
from conftest import run_inner

from docverify.run.output_diffs import output_line_diffs, pinned_torch, render

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import verify_gpu  # noqa: E402


def test_the_command_selects_the_cases_a_gpu_can_change(inner_suite: pytest.Pytester) -> None:
    """The command's own selection, run on snippets of each kind: what mentions CUDA or
    needs it is selected, a snippet that never mentions it is not."""
    snippets = inner_suite.path / "snippets"
    (snippets / "plain.py").write_text("print(1)\n#> 1\n")
    (snippets / "mentions.py").write_text("import torch\n\nprint(torch.cuda.is_available() or 1)\n")
    (snippets / "gpu.py").write_text("# requires: cuda\nprint(1)\n")
    assert verify_gpu.SELECTION in verify_gpu.pytest_command(record=False, workers=1)
    result = run_inner(inner_suite, "-m", verify_gpu.SELECTION, "--collect-only", "-q")
    cases = [line for line in result.outlines if "::test_snippet[" in line]
    assert sorted(Path(case.split("[")[1]).name for case in cases) == ["gpu.py", "mentions.py"]


def test_a_differing_output_line_is_listed_with_both_versions(inner_suite: pytest.Pytester) -> None:
    snippet = inner_suite.path / "snippets" / "shape.py"
    snippet.write_text("import torch\n\nprint(torch.zeros(2, 3).shape)\n#> torch.Size([3, 2])\n")
    diffs_file = inner_suite.path / "diffs.md"
    result = run_inner(inner_suite, f"--output-diffs={diffs_file}")
    result.assert_outcomes(failed=1)
    text = diffs_file.read_text(encoding="utf-8")
    assert "shape.py:4` [cpu]" in text
    assert "shown:   #> torch.Size([3, 2])" in text
    assert "printed: #> torch.Size([2, 3])" in text


def test_output_line_diffs_ignore_code_and_render_an_all_clear() -> None:
    written = "print(1)\n#> 2\nx = 1\n"
    assert output_line_diffs("a.py", "cuda", written, written) == []
    (diff,) = output_line_diffs("a.py", "cuda", written, "print(1)\n#> 1\nx = 1\n")
    assert (diff.line, diff.shown, diff.printed) == (2, ("#> 2",), ("#> 1",))
    assert "printed as shown" in render([], torch_version="2.11.0", pinned="2.14.1", cuda="H200")


def test_pinned_torch_is_read_from_requirements() -> None:
    pinned = pinned_torch(ROOT / "requirements.txt")
    assert pinned[0].isdigit()
    assert pinned in (ROOT / "requirements.txt").read_text(encoding="utf-8")
