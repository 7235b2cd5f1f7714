"""Conv1d(kernel_size=1) and Linear compute the same function; only the layout differs.

Page: docs/models/conv1d_linear.md
"""

# --8<-- [start:setup]
import inspect
import sys

import torch
from torch import nn
from torch.utils import benchmark

torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:shapes]
linear = nn.Linear(256, 512)
conv = nn.Conv1d(256, 512, kernel_size=1)
print(linear.weight.shape, conv.weight.shape)  # same numbers, one extra kernel axis ✓ weights-shape
#> torch.Size([512, 256]) torch.Size([512, 256, 1])
x = torch.randn(4, 100, 256)  # (N, L, C): what Linear wants, channels last
print(linear(x).shape)  # ✓ linear-shape
#> torch.Size([4, 100, 512])
print(conv(x.permute(0, 2, 1)).shape)  # Conv1d wants (N, C, L): channels first ✓ conv-shape
#> torch.Size([4, 512, 100])
view = x.permute(0, 2, 1)  # no copy: the same memory, read with other strides
print(view.data_ptr() == x.data_ptr(), view.is_contiguous(), view.stride())  # ✓ permute-view
#> True False (25600, 1, 256)
# --8<-- [end:shapes]


# --8<-- [start:equivalence]
def matched_pair(in_features: int, out_features: int) -> tuple[nn.Linear, nn.Conv1d]:
    """A Linear and a Conv1d(kernel_size=1) that compute the same function."""
    linear = nn.Linear(in_features, out_features)
    conv = nn.Conv1d(in_features, out_features, kernel_size=1)
    with torch.no_grad():
        conv.weight.copy_(linear.weight.unsqueeze(-1))  # (out, in) -> (out, in, 1)
        conv.bias.copy_(linear.bias)
    return linear, conv


linear, conv = matched_pair(256, 512)
y_linear = linear(x)  # (N, L, 512)
y_conv = conv(x.permute(0, 2, 1)).permute(0, 2, 1)  # back to (N, L, 512)
assert torch.allclose(y_linear, y_conv, atol=1e-5)  # ✓ equivalence
print((y_linear - y_conv).abs().max().item() < 1e-5)
#> True
# --8<-- [end:equivalence]

# --8<-- [start:layout-error]
try:
    conv(x)  # forgot the permute: 100 positions are taken for 100 channels
except RuntimeError as err:
    print(err)  # ✓ layout-error
    #> Given groups=1, weight of size [512, 256, 1], expected input[4, 100, 256] to have 256 channels, but got 100 channels instead
# --8<-- [end:layout-error]

# --8<-- [start:tiny-benchmark]
print(inspect.signature(benchmark.Timer).parameters["num_threads"].default)  # one thread unless told ✓ timer-threads
#> 1
assert "perform warmups" in benchmark.Timer.__doc__ and "synchronize" in benchmark.Timer.__doc__  # ✓ timer-doc
x_small = torch.randn(2, 64, 256)  # (N, L, C)
timers = {
    "linear": benchmark.Timer("linear(x)", globals={"linear": linear, "x": x_small}),
    "conv1d": benchmark.Timer("conv(x)", globals={"conv": conv, "x": x_small.permute(0, 2, 1).contiguous()}),
}
with torch.no_grad():
    median = {name: timer.blocked_autorange(min_run_time=0.01).median for name, timer in timers.items()}
assert all(seconds > 0 for seconds in median.values())  # ✓ timer-runs
# timings vary from run to run and machine to machine: shown on stderr, never `#>`-checked
print(f"median seconds per call: {median}; conv1d / linear: {median['conv1d'] / median['linear']:.2f}", file=sys.stderr)
# --8<-- [end:tiny-benchmark]
