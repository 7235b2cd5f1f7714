"""Conv1d(kernel_size=1) vs Linear: matched layers and a timing of both.

Shared by snippets/models/conv1d-linear.py (tiny, checked run) and
benchmarks/conv1d_vs_linear.py (the full sweep behind the page's plot and table).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.utils import benchmark


def matched_pair(in_features: int, out_features: int) -> tuple[nn.Linear, nn.Conv1d]:
    """A Linear and a Conv1d(kernel_size=1) that compute the same function."""
    linear = nn.Linear(in_features, out_features)
    conv = nn.Conv1d(in_features, out_features, kernel_size=1)
    with torch.no_grad():
        conv.weight.copy_(linear.weight.unsqueeze(-1))  # (out, in) -> (out, in, 1)
        conv.bias.copy_(linear.bias)
    return linear, conv


@dataclass(frozen=True)
class Timing:
    linear_s: float  # median seconds per call, Linear on (N, L, C)
    conv_s: float  # Conv1d on a contiguous (N, C, L) tensor
    conv_permuted_s: float  # Conv1d on x.permute(0, 2, 1), as in the notes

    @property
    def conv_over_linear(self) -> float:
        return self.conv_s / self.linear_s

    @property
    def conv_permuted_over_linear(self) -> float:
        return self.conv_permuted_s / self.linear_s


def time_pair(
    linear: nn.Linear, conv: nn.Conv1d, x_nlc: torch.Tensor, min_run_time: float = 0.2
) -> Timing:
    """Median time per call of each layout, measured in one run with torch.utils.benchmark."""
    x_ncl = x_nlc.permute(0, 2, 1).contiguous()
    x_permuted = x_nlc.permute(0, 2, 1)  # a strided view, what the notes fed to Conv1d
    globals_ = {"linear": linear, "conv": conv, "a": x_nlc, "b": x_ncl, "c": x_permuted}
    medians = []
    with torch.no_grad():
        for _ in range(3):  # warm-up: first calls pick kernels and allocate
            linear(x_nlc), conv(x_ncl), conv(x_permuted)
        for stmt in ("linear(a)", "conv(b)", "conv(c)"):
            timer = benchmark.Timer(
                stmt=stmt, globals=globals_, num_threads=torch.get_num_threads()
            )
            medians.append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return Timing(*medians)
