"""`make verify-gpu` (scripts/verify_gpu.py): what it selects and what it writes.

The command itself runs only where a GPU is lent; these checks run everywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_harness import inner_suite, run_inner  # noqa: F401  (inner_suite is a fixture)
from test_snippets import device_dependent

from docverify import snippets as snippet_file
from docverify.output_diffs import output_line_diffs, pinned_torch, render

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import verify_gpu  # noqa: E402


def test_every_cuda_snippet_is_selected_as_device_dependent() -> None:
    selected = {
        s.rel for p in snippet_file.discover() if device_dependent(s := snippet_file.load(p))
    }
    for path in snippet_file.discover():
        snippet = snippet_file.load(path)
        if "cuda" in snippet.devices or snippet.launched:
            assert snippet.rel in selected
    # and a snippet that never mentions CUDA is not
    assert not device_dependent(snippet_file.SnippetFile(path=ROOT / "x.py", source="print(1)\n"))


def test_a_differing_output_line_is_listed_with_both_versions(
    inner_suite: pytest.Pytester,  # noqa: F811  (the fixture imported above)
) -> None:
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


def test_the_command_selects_cuda_and_device_dependent_cases() -> None:
    command = verify_gpu.pytest_command(record=False, workers=1)
    assert command[command.index("-m", 3) + 1] == "cuda or device_dependent"
    assert any(arg.startswith("--output-diffs=") for arg in command)
    assert set(verify_gpu.CASES) <= set(command)
    record = verify_gpu.pytest_command(record=True, workers=4)
    assert record[record.index("-m", 3) + 1] == "cuda" and "--update-examples" in record
    assert "-n" not in record  # rewriting files from parallel workers would race
