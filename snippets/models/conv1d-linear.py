"""Conv1d(kernel_size=1) and Linear compute the same function; only the layout differs.

Page: docs/models/conv1d-linear.md
"""

import sys

import torch
from torch import nn

from docverify.machine import describe_machine
from ptnotes.models_conv1d_linear import matched_pair, time_pair

torch.manual_seed(0)

# --8<-- [start:shapes]
linear = nn.Linear(256, 512)
conv = nn.Conv1d(256, 512, kernel_size=1)
print(linear.weight.shape, conv.weight.shape)  # same numbers, one extra kernel axis
#> torch.Size([512, 256]) torch.Size([512, 256, 1])
x = torch.randn(4, 100, 256)  # (N, L, C): what Linear wants, channels last
print(linear(x).shape)
#> torch.Size([4, 100, 512])
print(conv(x.permute(0, 2, 1)).shape)  # Conv1d wants (N, C, L): channels first
#> torch.Size([4, 512, 100])
# --8<-- [end:shapes]

# --8<-- [start:equivalence]
linear, conv = matched_pair(256, 512)  # conv.weight = linear.weight.unsqueeze(-1), same bias
y_linear = linear(x)  # (N, L, 512)
y_conv = conv(x.permute(0, 2, 1)).permute(0, 2, 1)  # back to (N, L, 512)
assert torch.allclose(y_linear, y_conv, atol=1e-5)
print((y_linear - y_conv).abs().max().item() < 1e-5)
#> True
# --8<-- [end:equivalence]

# --8<-- [start:layout-error]
try:
    conv(x)  # forgot the permute: 100 positions are taken for 100 channels
except RuntimeError as err:
    print(err)
    #> Given groups=1, weight of size [512, 256, 1], expected input[4, 100, 256] to have 256 channels, but got 100 channels instead
# --8<-- [end:layout-error]

# --8<-- [start:tiny-benchmark]
timing = time_pair(linear, conv, torch.randn(2, 64, 256), min_run_time=0.01)
# timings vary from run to run and machine to machine: shown on stderr, never `#>`-checked
print(describe_machine(), file=sys.stderr)
print(f"conv1d / linear time: {timing.conv_over_linear:.2f}", file=sys.stderr)
assert timing.linear_s > 0 and timing.conv_s > 0
# --8<-- [end:tiny-benchmark]
