"""What docs/models/flops.md says about torchstat, checked against what it shows.

The torchstat script (snippets/models/torchstat_try.sh) needs PyPI and old
numpy/pandas releases, so the suite cannot run it. These tests check what can
be checked without it: the committed transcript shows the versions and errors
the page cites, its `conv1` row relates to the page's MAC count as the page
says, and the script's model is the page's model (same FlopCounterMode count).
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from docverify.paths import REPO_ROOT

SCRIPT = REPO_ROOT / "snippets/models/torchstat_try.sh"
TRANSCRIPT = REPO_ROOT / "docs/assets/generated/models/torchstat_output.txt"
PAGE = REPO_ROOT / "docs/models/flops.md"

# The page's model (snippets/models/flops.py): 3 -> 16 -> 32 channels on 32 x 32.
CONV1_MACS = 16 * 32 * 32 * (3 * 3 * 3)
CONV1_OUTPUTS = 16 * 32 * 32
PAGE_FORWARD_FLOPS = 3244672  # the `#>` line of snippets/models/flops.py:count


def _attempts() -> dict[str, str]:
    """Transcript sections by their heading number ('1', '2', '3')."""
    parts = re.split(r"^# (\d)\. .*$", TRANSCRIPT.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize(
    ("attempt", "versions", "outcome"),
    [
        (
            "1",
            "numpy 2.4.6,pandas 3.1.1",
            "AttributeError: 'DataFrame' object has no attribute 'append'",
        ),
        (
            "2",
            "numpy 1.26.4,pandas 1.5.3",
            "AttributeError: module 'numpy' has no attribute 'long'",
        ),
        ("3", "numpy 1.23.5,pandas 1.5.3", "Total MAdd: 3.35MMAdd"),
    ],
)
def test_transcript_shows_the_cited_versions_and_outcomes(attempt, versions, outcome) -> None:
    text = _attempts()[attempt]
    assert f"$ pip list: {versions},torch 2.14.1,torchstat 0.0.7" in text
    assert outcome in text
    page = PAGE.read_text(encoding="utf-8")
    for version in re.findall(r"(?:numpy|pandas) ([\d.]+)", versions):
        assert version in page, f"the page does not cite {version}"


def test_only_the_last_attempt_printed_a_report() -> None:
    attempts = _attempts()
    assert "Total MAdd" not in attempts["1"] + attempts["2"]
    assert "AdaptiveAvgPool2d is not supported" in attempts["3"]


def test_conv1_row_relates_to_the_pages_mac_count_as_stated() -> None:
    row = next(line for line in _attempts()["3"].splitlines() if line.split()[1:2] == ["conv1"])
    madd, flops = (int(float(v.replace(",", ""))) for v in re.findall(r"[\d,]+\.\d", row)[-6:-4])
    assert (madd, flops) == (884_736, 458_752)
    assert madd == 2 * CONV1_MACS  # "MAdd" is 2 x MACs
    assert flops == CONV1_MACS + CONV1_OUTPUTS  # "Flops" is MACs + one bias addition per output
    page = PAGE.read_text(encoding="utf-8")
    assert "884,736" in page and "458,752" in page and f"{CONV1_MACS:,}" in page


def test_the_scripts_model_is_the_pages_model() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    python = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    python = python.replace("from torchstat import stat\n", "")
    python = re.sub(r"^stat\(.*\)$", "", python, flags=re.M)
    namespace: dict = {}
    exec(compile(python, str(SCRIPT), "exec"), namespace)  # noqa: S102 - our own script's model
    model = namespace["SmallCNN"]().eval()
    assert any(isinstance(m, nn.AdaptiveAvgPool2d) for m in model.modules())
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model(torch.zeros(1, 3, 32, 32))
    assert counter.get_total_flops() == PAGE_FORWARD_FLOPS
