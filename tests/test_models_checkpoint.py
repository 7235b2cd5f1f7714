"""ptnotes.models_checkpoint.load_matching and ptnotes.models_conv, on their own."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from ptnotes.models_checkpoint import load_matching
from ptnotes.models_conv import conv_out_size, conv_param_count


def _net(n_classes: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, n_classes))


def test_load_matching_copies_matching_and_reports_the_rest() -> None:
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


def test_load_matching_reports_keys_missing_from_the_checkpoint() -> None:
    target = _net(3)
    report = load_matching(target, {"0.weight": torch.ones(8, 4)})
    assert report.loaded == ["0.weight"]
    assert "0.bias" in report.not_in_checkpoint
    assert torch.equal(target[0].weight, torch.ones(8, 4))


@pytest.mark.parametrize(
    ("size", "kernel", "stride", "padding", "dilation"),
    [(32, 3, 1, 0, 1), (32, 3, 2, 1, 1), (17, 5, 3, 2, 2), (8, 1, 1, 0, 1), (13, 4, 2, 0, 3)],
)
def test_conv_out_size_matches_a_real_layer(size, kernel, stride, padding, dilation) -> None:
    conv = nn.Conv1d(1, 1, kernel, stride=stride, padding=padding, dilation=dilation)
    out = conv(torch.zeros(1, 1, size))
    assert out.shape[-1] == conv_out_size(size, kernel, stride, padding, dilation)


def test_conv_param_count_matches_a_real_layer() -> None:
    conv = nn.Conv2d(12, 6, (3, 5), groups=3, bias=False)
    assert conv_param_count(12, 6, (3, 5), groups=3, bias=False) == sum(
        p.numel() for p in conv.parameters()
    )
