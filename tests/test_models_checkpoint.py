"""The page helpers of the Models section, on their own, loaded from the pages' snippets.

`load_matching` is defined on docs/models/saving.md (snippets/models/saving.py,
section `load-matching`); `conv_out_size` and `conv_param_count` on
docs/models/conv.md (snippets/models/conv.py). The tests run exactly the code
the pages show (the set-up section and the section that defines the helper)
and try the helpers on cases the pages do not show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from docverify.contract.sections import sections_module
from docverify.paths import REPO_ROOT


def _sections(path: Path, *names: str) -> dict:
    """Run the named sections of a snippet file, in order, in a fresh namespace."""
    return vars(sections_module(path, *names))


@pytest.fixture(scope="module")
def load_matching():
    namespace = _sections(REPO_ROOT / "snippets/models/saving.py", "setup", "load-matching")
    namespace["scratch"].cleanup()  # the set-up's scratch folder: not needed here
    return namespace["load_matching"]


@pytest.fixture(scope="module")
def conv_helpers() -> dict:
    return _sections(REPO_ROOT / "snippets/models/conv.py", "setup", "helpers", "formula")


def _net(n_classes: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, n_classes))


def test_load_matching_copies_matching_and_reports_the_rest(load_matching) -> None:
    torch.manual_seed(0)
    source = _net(10)
    target = _net(3)
    head_before = target[2].weight.detach().clone()
    checkpoint = {**source.state_dict(), "extra.weight": torch.zeros(2)}

    report = load_matching(target, checkpoint)

    assert report.shape_mismatch == ["2.weight", "2.bias"]
    assert report.not_in_model == ["extra.weight"]
    assert report.not_in_checkpoint == ["2.weight", "2.bias"]
    assert set(report.loaded) == set(source.state_dict()) - {"2.weight", "2.bias"}
    for key in report.loaded:
        assert torch.equal(target.state_dict()[key], source.state_dict()[key])
    assert torch.equal(target[2].weight, head_before)  # left untouched


def test_load_matching_reports_keys_missing_from_the_checkpoint(load_matching) -> None:
    target = _net(3)
    report = load_matching(target, {"0.weight": torch.ones(8, 4)})
    assert report.loaded == ["0.weight"]
    assert "0.bias" in report.not_in_checkpoint
    assert torch.equal(target[0].weight, torch.ones(8, 4))


@pytest.mark.parametrize(
    "case",  # (size, kernel, stride, padding, dilation)
    [(32, 3, 1, 0, 1), (32, 3, 2, 1, 1), (17, 5, 3, 2, 2), (8, 1, 1, 0, 1), (13, 4, 2, 0, 3)],
)
def test_conv_out_size_matches_a_real_layer(conv_helpers, case) -> None:
    size, kernel, stride, padding, dilation = case
    conv = nn.Conv1d(1, 1, kernel, stride=stride, padding=padding, dilation=dilation)
    out = conv(torch.zeros(1, 1, size))
    assert out.shape[-1] == conv_helpers["conv_out_size"](*case)


def test_conv_param_count_matches_a_real_layer(conv_helpers) -> None:
    conv = nn.Conv2d(12, 6, (3, 5), groups=3, bias=False)
    assert conv_helpers["conv_param_count"](12, 6, (3, 5), groups=3, bias=False) == sum(
        p.numel() for p in conv.parameters()
    )
    assert conv_helpers["n_params"](conv) == 6 * 4 * 15
