"""Convolution arithmetic for the Models pages (docs/models/conv.md, flops.md)."""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn


def conv_out_size(
    size: int, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1
) -> int:
    """Output length of one spatial dimension: floor((size + 2p - d(k-1) - 1) / s) + 1."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_param_count(
    in_channels: int,
    out_channels: int,
    kernel_size: Sequence[int],
    groups: int = 1,
    bias: bool = True,
) -> int:
    """Weights (out x in/groups x prod(kernel)) plus one bias per output channel."""
    taps = 1
    for k in kernel_size:
        taps *= k
    return out_channels * (in_channels // groups) * taps + (out_channels if bias else 0)


def n_params(module: nn.Module) -> int:
    """Number of parameter elements (each shared parameter counted once)."""
    return sum(p.numel() for p in module.parameters())
